// Checkpoints (core/checkpoint.hpp and the md, nbody and ljc layouts). The first byte picks the
// mode: odd, the input is a whole file (the header checks: magic, version, size, CRC); even, the
// input is a payload wrapped in a valid header, so the fuzzer reaches the field readers and the
// workloads' state loaders (a payload with a wrong layout must be refused, never half-read into
// a crash). The second byte picks the workload.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "core/checkpoint.hpp"
#include "fuzz_target.hpp"
#include "ljc/checkpoint.hpp"
#include "ljc/generator.hpp"
#include "md/checkpoint.hpp"
#include "md/engine.hpp"
#include "md/run.hpp"
#include "nbody/checkpoint.hpp"
#include "nbody/gravity_kernel.hpp"
#include "nbody/initial_conditions.hpp"

namespace {

using namespace pairwise;

std::vector<unsigned char> wrap(const std::uint8_t* payload, std::size_t size) {
  std::vector<unsigned char> file(24);
  std::memcpy(file.data(), "PWCKPT1\n", 8);
  const std::uint32_t version = kCheckpointVersion, crc = crc32(payload, size);
  const std::uint64_t n = size;
  std::memcpy(file.data() + 8, &version, 4);
  std::memcpy(file.data() + 12, &crc, 4);
  std::memcpy(file.data() + 16, &n, 8);
  file.insert(file.end(), payload, payload + size);
  return file;
}

// A small md system and cpu engine (108 atoms), built once.
struct MdFixture {
  md::MdRunConfig rc;
  md::System initial;
  MdFixture() {
    rc.cells = {3, 3, 3};
    rc.cutoff = 2.0;
    rc.backend = BackendKind::cpu;
    rc.precision = Precision::double_;
    initial = md::build_system(rc);
  }
};

}  // namespace

PAIRWISE_FUZZ_TARGET(data, size) {
  if (size < 2) return;
  const bool whole_file = data[0] & 1;
  const int workload = data[1] % 3;
  auto file =
      whole_file ? std::vector<unsigned char>(data + 2, data + size) : wrap(data + 2, size - 2);
  CheckpointReader r = CheckpointReader::from_bytes(std::move(file), "fuzz.ckpt");
  if (workload == 0) {
    static MdFixture f;
    md::EngineOptions eo;
    eo.precision = f.rc.precision;
    eo.skin = f.rc.skin;
    auto engine = md::make_md_engine(BackendKind::cpu, eo);
    md::System s = f.initial;
    md::read_md_checkpoint(r, md::md_config_text(f.rc, BackendKind::cpu), *engine, s);
  } else if (workload == 1) {
    nbody::RunConfig rc;
    rc.n = 16;
    rc.precision = Precision::double_;
    nbody::KernelOptions ko;
    ko.precision = Precision::double_;
    ko.eps2 = rc.eps * rc.eps;
    static auto kernel = nbody::make_gravity_kernel(BackendKind::cpu, ko);
    auto integrator = nbody::make_integrator(rc.integrator, *kernel, nbody::make_plummer(16, 1));
    nbody::read_nbody_checkpoint(r, nbody::nbody_config_text(rc, BackendKind::cpu), *integrator);
  } else {
    ljc::RunConfig rc;
    rc.globule.n = 8;
    rc.precision = Precision::double_;
    static const ljc::Molecule base = ljc::make_globule(rc.globule);
    ljc::Molecule mol = base;
    ljc::LjcForces f;
    f.resize(mol.size());
    ljc::read_ljc_checkpoint(r, ljc::ljc_config_text(rc, BackendKind::cpu), mol, f);
  }
}
