#include "core/bench_json.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <utility>

#include "pairwise/error.hpp"
#include "parallel/communicator.hpp"

namespace pairwise {

// $PAIRWISE_GIT when set (who copies a build to another machine knows which revision it was built
// from; the working directory there may be another checkout), else `git rev-parse --short HEAD` of
// the working directory, else "unknown".
std::string BenchRecord::git_revision() {
  static const std::string cached = [] {
    if (const char* env = std::getenv("PAIRWISE_GIT"); env && *env) return std::string(env);
    std::string rev;
    if (FILE* pipe = popen("git rev-parse --short HEAD 2>/dev/null", "r")) {
      std::array<char, 64> buf{};
      while (std::fgets(buf.data(), int(buf.size()), pipe)) rev += buf.data();
      pclose(pipe);
    }
    while (!rev.empty() && (rev.back() == '\n' || rev.back() == '\r' || rev.back() == ' '))
      rev.pop_back();
    return rev.empty() ? std::string("unknown") : rev;
  }();
  return cached;
}

std::string BenchRecord::utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

BackendKind resolve_bench_backend(BackendKind requested) {
  std::string note;
  const BackendKind backend = resolve_backend(requested, &note);
  std::printf("# %s\n", note.c_str());
  return backend;
}

nlohmann::json to_json(const BenchRecord& r) {
  nlohmann::json json{{"suite", r.suite},     {"case", r.case_name},
                      {"backend", r.backend}, {"precision", r.precision},
                      {"device", r.device},   {"n", r.n},
                      {"params", r.params},   {"metric", r.metric},
                      {"value", r.value},     {"unit", r.unit},
                      {"time_s", r.time_s},   {"git", r.git},
                      {"date", r.date}};
  // Many ranks (docs/distributed.md): the record says how many measured it.
  if (const int ranks = parallel::world().size(); ranks > 1) json["params"]["ranks"] = ranks;
  return json;
}

void write_bench_json(const std::string& path, const std::vector<BenchRecord>& records,
                      const std::string& interrupted) {
  if (!parallel::is_writer()) return;  // many ranks: rank 0 writes
  nlohmann::json array = nlohmann::json::array();
  for (const auto& r : records) {
    array.push_back(to_json(r));
    if (!interrupted.empty()) array.back()["interrupted"] = interrupted;
  }
  const std::filesystem::path target(path);
  const std::filesystem::path tmp(path + ".tmp");
  if (target.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(target.parent_path(), ec);
  }
  {
    std::ofstream out(tmp);
    if (!out) throw Error("cannot write benchmark results", tmp.string());
    out << array.dump(2) << '\n';
    out.close();
    if (!out) {
      std::filesystem::remove(tmp);
      throw Error("cannot write benchmark results (disk full?)", tmp.string());
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, target, ec);
  if (ec) {
    std::filesystem::remove(tmp);
    throw Error("cannot rename benchmark results into place: " + ec.message(), path);
  }
}

BenchRun::BenchRun(std::string suite, std::string json_path)
    : suite_(std::move(suite)), json_path_(std::move(json_path)) {}

void BenchRun::next_case() {
  maybe_raise_test_signal(std::int64_t(records_.size()));
  if (const int sig = stop_requested(); sig != 0) {
    stop_signal_ = sig;
    throw BenchStopped{};
  }
}

void BenchRun::add(BenchRecord record) {
  records_.push_back(std::move(record));
  std::fflush(stdout);
}

int BenchRun::finish() {
  const bool writes = !json_path_.empty() && !(stop_signal_ && records_.empty());
  if (writes) write_bench_json(json_path_, records_, stop_signal_ ? signal_name(stop_signal_) : "");
  if (!parallel::is_writer()) return stop_signal_ ? stop_exit_code(stop_signal_) : 0;
  if (!stop_signal_) {
    if (writes) std::printf("# wrote %zu records to %s\n", records_.size(), json_path_.c_str());
    return 0;
  }
  std::fflush(stdout);
  const std::string sig = signal_name(stop_signal_);
  std::string what = "no case had finished";
  if (!records_.empty())
    what = std::to_string(records_.size()) + " record" + (records_.size() == 1 ? "" : "s") +
           " of the finished cases";
  if (writes)
    std::fprintf(stderr,
                 "bench %s: stopped by %s: wrote %s to %s (marked \"interrupted\": \"%s\")\n",
                 suite_.c_str(), sig.c_str(), what.c_str(), json_path_.c_str(), sig.c_str());
  else
    std::fprintf(stderr, "bench %s: stopped by %s: %s; no file written%s\n", suite_.c_str(),
                 sig.c_str(), what.c_str(), json_path_.empty() ? " (no --json asked)" : "");
  return stop_exit_code(stop_signal_);
}

}  // namespace pairwise
