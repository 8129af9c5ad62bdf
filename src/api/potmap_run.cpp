// `pairwise potmap` and `pairwise run` for workload = "potmap" (potmap/run.hpp): the map of one
// set of atoms (input read while the CUDA context starts on a second thread, map memory touched
// early, the previous output freed in the background) or of the frames of a trajectory (averaged,
// min, max or all), written as .dx, .dx.gz or .npy; stop signals end a trajectory between frames.
#include <stdlib.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <ostream>
#include <string>
#include <thread>

#include "core/io/atomic_file.hpp"
#include "core/io/opendx.hpp"
#include "core/signals.hpp"
#include "pairwise/error.hpp"
#include "parallel/communicator.hpp"
#include "potmap/cuda_map.hpp"
#include "potmap/custom_phi.hpp"
#include "potmap/map_output.hpp"
#include "potmap/rank_frames.hpp"
#include "potmap/run.hpp"

namespace pairwise::potmap {

namespace {

std::string method_text(const MapOptions& m) {
  if (m.custom)  // [map] phi
    return "sum of q phi(r), phi = " + m.custom->text() +
           (m.cutoff > 0 ? ", truncated at rc = " + std::to_string(m.cutoff) + " A" : "");
  return m.cutoff > 0
             ? "cutoff summation, rc = " + std::to_string(m.cutoff) + " A, s(r) = (1 - r^2/rc^2)^2"
             : std::string("direct summation");
}

// The grid of a map (e/Å) in the config's units; FP32 maps are stored as FP32 values (in the .npy
// as float32, in the .dx as the shortest text of each FP32 value, which reads back as that value).
io::ScalarGrid to_grid(const Lattice& lattice, std::vector<double> values, bool single,
                       const PotmapConfig& c, const std::vector<std::string>& comments) {
  convert_units(values, c.units, single);
  return map_grid(lattice, std::move(values), single, c.units, comments);
}

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Resolves the backend on a thread of its own and, for cuda, creates the context there and loads
// the map's kernels, while the caller reads the input (the context takes 0.2-0.4 s on an H200
// host). Records when the context was up and when the kernels were loaded (s after t0).
class BackendStart {
 public:
  BackendStart(BackendKind requested, const MapOptions& options, Clock::time_point t0)
      : thread_([this, requested, options, t0] {
          try {
            backend_ = resolve_backend(requested, &note_);
            if (backend_ == BackendKind::cuda && cuda_start_context(options.device)) {
              context_seconds_ = since(t0);
              cuda_warm_up(options);
              warm_seconds_ = since(t0);
            }
          } catch (...) {
            error_ = std::current_exception();
          }
        }) {}
  ~BackendStart() {
    if (thread_.joinable()) thread_.join();
  }
  BackendKind get(std::string& note) {
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(error_);
    note = note_;
    return backend_;
  }
  // "CUDA context 0.21, kernels loaded 0.23, " (after get(); empty for the host backends).
  std::string times() const {
    if (context_seconds_ <= 0) return {};
    return "CUDA context " + std::to_string(context_seconds_) + ", kernels loaded " +
           std::to_string(warm_seconds_) + ", ";
  }

 private:
  BackendKind backend_ = BackendKind::reference;
  std::string note_;
  std::exception_ptr error_;
  double context_seconds_ = 0, warm_seconds_ = 0;
  std::thread thread_;
};

int run_single(const PotmapConfig& c, std::ostream& log) {
  const auto t0 = Clock::now();
  BackendStart start(c.backend, c.map, t0);
  Atoms atoms = load_atoms(c);
  const std::size_t input_atoms = atoms.size();
  const double t_read = since(t0);
  Lattice lattice;
  if (c.box_given) {  // a periodic cell at the origin: the lattice spans it, images within rc
    if (!(c.map.cutoff > 0)) {
      throw Error(
          "a periodic map needs a cutoff (--cutoff RC; the direct sum over periodic "
          "images does not converge)",
          "--box");
    }
    Cell cell;
    cell.length = c.box;
    lattice = c.explicit_lattice ? make_lattice(c, atoms) : lattice_of_cell(cell, c.spacing);
    atoms = periodic_images(atoms, cell, lattice, c.map.cutoff);
  } else {
    lattice = make_lattice(c, atoms);
  }
  validate(atoms, lattice, c.map);
  // The input is good: the previous map at the output path goes now, in the background, while
  // the CUDA context starts (a rename onto it at the end would spend 25-50 ms freeing it).
  const io::BackgroundRemoval previous_map(c.output);
  // The map's host memory, allocated and touched now, while the CUDA context may still be
  // starting: the first touch of a fresh map (66 MB at 202^3 points) costs tens of ms in page
  // faults (compute_map's note). Only the cuda backend fills it; the others allocate their own.
  std::vector<double> values;
  if (c.backend == BackendKind::cuda || c.backend == BackendKind::automatic)
    values.resize(lattice.size());
  const double t_prepared = since(t0);
  std::string note;
  const BackendKind backend = start.get(note);
  const double t_backend = since(t0);
  log << "potmap: " << note << "\n";
  log << "potmap: " << input_atoms << " atoms from "
      << (c.input.empty() ? "a generated water box" : c.input.string())
      << (c.box_given ? ", " + std::to_string(atoms.size()) + " with their periodic images" : "")
      << "\n";
  log << "potmap: lattice " << lattice.counts[0] << " x " << lattice.counts[1] << " x "
      << lattice.counts[2] << " points, spacing " << lattice.spacing << " A, origin ("
      << lattice.origin[0] << ", " << lattice.origin[1] << ", " << lattice.origin[2] << ")\n";
  MapResult r = compute_map(backend, atoms, lattice, c.map, std::move(values));
  const double t_map = since(t0);
  const std::string method = method_text(c.map);
  log << "potmap: " << method << ", exclusion " << c.map.exclusion << " A"
      << (c.map.kahan ? ", compensated sums" : "") << "\n";
  if (r.slabs > 1) log << "potmap: " << r.slab_note << "\n";
  log << "potmap: " << r.device << ", " << to_string(r.precision) << " precision, "
      << r.seconds * 1e3 << " ms\n";
  const bool single = r.precision != Precision::double_;
  const io::ScalarGrid grid = to_grid(
      lattice, std::move(r.values), single, c,
      {std::to_string(input_atoms) + " atoms" + (c.box_given ? " (periodic)" : "") + "; " + method +
           "; exclusion radius " + std::to_string(c.map.exclusion) + " A",
       "backend " + std::string(to_string(r.backend)) + ", " + std::string(to_string(r.precision)) +
           " precision" + (c.map.kahan ? ", compensated sums" : "")});
  write_map_file(c.output, grid, single);
  const double t_end = since(t0);
  log << "potmap: wrote " << c.output.string() << " (" << to_string(c.units) << ")\n";
  log << "potmap: times (s after start): read " << t_read << ", map memory ready " << t_prepared
      << ", " << start.times() << "backend ready " << t_backend << "; durations (s): map "
      << t_map - t_backend << " (device " << r.seconds << "), write " << t_end - t_map << ", total "
      << t_end << "\n";
  return 0;
}

Atoms frame_atoms(const io::TrajectoryFrame& f, const Atoms& topology) {
  Atoms a;
  a.x = f.x, a.y = f.y, a.z = f.z, a.q = topology.q;
  return a;
}

// The maps of Combine::all: a 4-D .npy (frames, nx, ny, nz) or one file a frame
// (map.dx -> map.0000.dx, ...); files are renamed into place only when every frame is done.
class FrameOutputs {
 public:
  FrameOutputs(const std::filesystem::path& output) : output_(output) {}
  ~FrameOutputs() {
    for (const auto& t : temps_) {
      std::error_code ec;
      std::filesystem::remove(t.second, ec);
    }
  }
  void add(const io::ScalarGrid& grid, bool single, long frame) {
    if (output_kind(output_) == OutputKind::npy) {
      if (!npy_) {
        npy_ = std::make_unique<io::NpyFrames>(output_, grid.counts, single);
      }
      npy_->add(grid);
      return;
    }
    std::string stem = output_.filename().string();
    const bool gz = output_kind(output_) == OutputKind::dx_gz;
    stem.resize(stem.size() - (gz ? 6 : 3));
    char number[32];
    std::snprintf(number, sizeof number, ".%04ld", frame);
    const auto final_path = output_.parent_path() / (stem + number + (gz ? ".dx.gz" : ".dx"));
    auto temp = final_path;
    temp += ".frames.tmp";
    write_map_file(temp.string() + (gz ? ".dx.gz" : ".dx"), grid, single);
    temps_.emplace_back(final_path, temp.string() + (gz ? ".dx.gz" : ".dx"));
  }
  void commit() {
    if (npy_) npy_->commit();
    // Ranks other than 0 wrote no temporary file (io::AtomicFile): nothing to rename there.
    if (parallel::is_writer())
      for (const auto& t : temps_) std::filesystem::rename(t.second, t.first);
    temps_.clear();
  }

 private:
  std::filesystem::path output_;
  std::unique_ptr<io::NpyFrames> npy_;
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> temps_;
};

int run_trajectory(const PotmapConfig& c, std::ostream& log) {
  const auto t0 = Clock::now();
  output_kind(c.output);
  BackendStart start(c.backend, c.map, t0);
  if (c.input.empty()) {
    throw Error("a trajectory needs a topology with the charges (--topology ATOMS.pqr)",
                "topology");
  }
  const Atoms topology = load_atoms(c);
  auto reader = io::open_trajectory(c.trajectory, c.trajectory_format);
  const std::string traj = c.trajectory.string();
  for (long i = 0; i < c.first_frame; ++i) {
    if (!reader->skip()) {
      throw Error("the trajectory ends after " + std::to_string(i) + " frames, before frame " +
                      std::to_string(c.first_frame) + " (--frames)",
                  traj);
    }
  }
  std::string note;
  const BackendKind backend = start.get(note);
  log << "potmap: " << note << "\n";
  const std::string method = method_text(c.map);
  std::unique_ptr<FrameMaps> maps;
  RankFrameMaps* ranked = nullptr;  // frames across ranks: maps, seen as the ranks' accumulator
  std::unique_ptr<FrameOutputs> outputs;
  Lattice lattice;
  bool periodic = false;
  io::TrajectoryFrame frame;
  const bool single = c.map.precision != Precision::double_;
  long index = c.first_frame;
  std::size_t images = 0;
  // SIGINT/SIGTERM/SIGUSR1/SIGXCPU stop between frames (src/core/signals.hpp): the frame being
  // summed finishes and the map of the frames done so far is written (a valid map, its comment and
  // the log say how many frames it holds); the exit code is 128 + signal.
  StopSignals stop_guard;
  // Under mpirun, the average, minimum or maximum takes the frames across ranks (selected frame k
  // on rank k mod P; every rank reads the first frame for the lattice and skips the others'
  // frames); one map a frame (all) takes each frame's slabs across ranks (compute_map).
  const int ranks = parallel::world().size(), rank = parallel::world().rank();
  const bool frames_across_ranks = ranks > 1 && c.combine != Combine::all;
  long selected = 0;  // selected frames read or skipped so far
  bool stopped = false;
  while (c.last_frame < 0 || index <= c.last_frame) {
    maybe_raise_test_signal(selected);
    if (frames_across_ranks) {
      // The ranks decide together, once per round of P frames (a signal may reach them apart).
      if (selected % ranks == 0 && parallel::any_rank(stop_requested() != 0)) {
        stopped = true;
        break;
      }
    } else if (stop_requested()) {
      stopped = true;
      break;
    }
    const bool mine = !frames_across_ranks || selected % ranks == rank;
    ++selected;
    if (maps && !mine) {  // another rank's frame
      if (!reader->skip()) break;
      bool more = true;
      for (long s = 1; s < c.frame_stride && more; ++s) more = reader->skip();
      if (!more) break;
      index += c.frame_stride;
      continue;
    }
    if (!reader->next(frame)) break;
    const std::string where = traj + ": frame " + std::to_string(index);
    if (frame.size() != topology.size()) {
      throw Error("frame has " + std::to_string(frame.size()) + " atoms, the topology " +
                      std::to_string(topology.size()),
                  where);
    }
    Atoms atoms = frame_atoms(frame, topology);
    Cell cell;
    bool has_cell = false;
    if (c.box_given) {
      cell.length = c.box, has_cell = true;
    } else if (frame.has_cell && c.periodic) {
      cell.origin = frame.cell_origin, cell.length = frame.cell_length, has_cell = true;
    }
    if (!maps) {
      periodic = has_cell;
      if (periodic && !(c.map.cutoff > 0)) {
        throw Error(
            "a periodic map needs a cutoff (--cutoff RC; the direct sum over periodic "
            "images does not converge), or --no-periodic",
            where);
      }
      lattice = c.explicit_lattice ? make_lattice(c, atoms)
                : periodic         ? lattice_of_cell(cell, c.spacing)
                                   : lattice_around(atoms, c.spacing, c.padding);
      log << "potmap: " << topology.size() << " atoms from " << c.input.string() << ", frames of "
          << traj << ", " << reader->describe() << "\n";
      log << "potmap: lattice " << lattice.counts[0] << " x " << lattice.counts[1] << " x "
          << lattice.counts[2] << " points, spacing " << lattice.spacing << " A, origin ("
          << lattice.origin[0] << ", " << lattice.origin[1] << ", " << lattice.origin[2] << ")"
          << (periodic ? ", periodic cell " : "")
          << (periodic ? std::to_string(cell.length[0]) + " x " + std::to_string(cell.length[1]) +
                             " x " + std::to_string(cell.length[2]) + " A"
                       : std::string())
          << "\n";
      maps = make_frame_maps(backend, lattice, c.map, c.combine);
      if (frames_across_ranks) {
        auto wrapper =
            std::make_unique<RankFrameMaps>(std::move(maps), backend, lattice.size(), c.combine);
        ranked = wrapper.get();
        maps = std::move(wrapper);
      }
      if (c.combine == Combine::all) outputs = std::make_unique<FrameOutputs>(c.output);
    } else if (periodic != has_cell) {
      throw Error("the frame's periodic cell differs from the first frame's (one has none)", where);
    }
    if (!mine) {  // the first frame, read by every rank for the lattice, is rank 0's
      bool more = true;
      for (long s = 1; s < c.frame_stride && more; ++s) more = reader->skip();
      if (!more) break;
      index += c.frame_stride;
      continue;
    }
    if (periodic) atoms = periodic_images(atoms, cell, lattice, c.map.cutoff);
    images = atoms.size();
    try {
      validate(atoms, lattice, c.map);
    } catch (const Error& e) {
      throw Error(e.message(), where + (e.where().empty() ? "" : ", " + e.where()));
    }
    maps->add(atoms);
    if (outputs) {
      outputs->add(to_grid(lattice, maps->result(), single, c,
                           {"frame " + std::to_string(index) + " of " + traj}),
                   single, index);
    }
    // The frames between this one and the next selected one.
    bool more = true;
    for (long s = 1; s < c.frame_stride && more; ++s) more = reader->skip();
    if (!more) break;
    index += c.frame_stride;
  }
  if (ranked) ranked->reduce();  // every rank: maps exists on all or none (the first frame)
  // Across ranks, the signal that stopped any rank stops all (SIGTERM where it reached only
  // another rank), so that every rank returns the same code.
  if (frames_across_ranks) stopped = parallel::any_rank(stopped || stop_requested() != 0);
  const int stop_signal = !frames_across_ranks ? stop_requested()
                          : stopped            ? (stop_requested() ? stop_requested() : SIGTERM)
                                               : 0;
  if (stop_signal && (!maps || maps->frames() == 0)) {
    log << "potmap: stopped by " << signal_name(stop_signal)
        << " before the first frame was mapped; nothing written\n";
    return stop_exit_code(stop_signal);
  }
  if (!maps || maps->frames() == 0) {
    throw Error("no frames selected (the trajectory has fewer than " +
                    std::to_string(c.first_frame + 1) + " frames)",
                traj);
  }
  std::vector<std::string> comments = {
      std::to_string(topology.size()) + " atoms; " + method + "; exclusion radius " +
          std::to_string(c.map.exclusion) + " A",
      std::string(to_string(c.combine)) + " of " + std::to_string(maps->frames()) + " frames of " +
          traj + (periodic ? " (periodic images)" : "") +
          (stop_signal ? " (stopped by " + signal_name(stop_signal) + ")" : ""),
      "backend " + maps->device() + ", " + std::string(to_string(c.map.precision)) + " precision"};
  if (outputs) {
    outputs->commit();
  } else {
    write_map_file(c.output, to_grid(lattice, maps->result(), single, c, comments), single);
  }
  const double t = since(t0);
  log << "potmap: " << method << ", exclusion " << c.map.exclusion << " A"
      << "\n";
  log << "potmap: " << maps->device() << ", " << maps->frames() << " frames ("
      << to_string(c.combine) << ")"
      << (periodic ? ", " + std::to_string(images) + " atoms with images in the last" : "") << ", "
      << t << " s, " << double(maps->frames()) / t << " frames/s\n";
  log << "potmap: wrote "
      << (c.combine == Combine::all && output_kind(c.output) != OutputKind::npy
              ? "one map a frame (NAME.FRAME.dx) for "
              : "")
      << c.output.string() << " (" << to_string(c.units) << ")\n";
  if (stop_signal) {
    log << "potmap: stopped by " << signal_name(stop_signal) << " after " << maps->frames()
        << " frames of " << traj << "; the map holds those frames\n";
    return stop_exit_code(stop_signal);
  }
  return 0;
}

}  // namespace

int run_potmap(const PotmapConfig& c, std::ostream& log) {
  output_kind(c.output);
  // Maps launch on one stream, so one hardware work queue is enough: CUDA creates 8 by default,
  // and with 1 the context's creation and teardown are ~0.08 s shorter on the H200 host
  // (`pairwise info` 0.21-0.25 s against 0.28-0.40 s, measured). Read when CUDA initializes, so
  // it applies where this is the first CUDA use of the process (the command line); a value the
  // user set is kept.
  ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", /*overwrite=*/0);
  return c.trajectory.empty() ? run_single(c, log) : run_trajectory(c, log);
}

}  // namespace pairwise::potmap
