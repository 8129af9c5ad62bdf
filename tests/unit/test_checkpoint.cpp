// The resilience infrastructure of src/core: the checkpoint file format (CRC-32, version, size,
// bounds-checked fields, .prev kept), growing outputs cut back on restart, stale temporary files,
// and the stop signals.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/checkpoint.hpp"
#include "core/io/growing_file.hpp"
#include "core/signals.hpp"
#include "error_message.hpp"
#include "pairwise/error.hpp"

namespace pairwise {
namespace {

using pairwise::test::error_of;

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("pw_ckpt_" + name + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::vector<unsigned char> bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(Checkpoint, Crc32MatchesTheStandardCheckValue) {
  EXPECT_EQ(crc32("123456789", 9), 0xCBF43926u);  // the CRC-32/ISO-HDLC check value
  EXPECT_EQ(crc32("", 0), 0u);
  // Incremental use gives the same as one call.
  EXPECT_EQ(crc32("6789", 4, crc32("12345", 5)), 0xCBF43926u);
}

TEST(Checkpoint, FieldsRoundTripAndThePreviousFileIsKept) {
  const fs::path d = fresh_dir("roundtrip");
  CheckpointWriter w;
  write_checkpoint_header(w, "md", "a = 1\nb = 2\n");
  w.i64(-42), w.u64(7), w.f64(0.1), w.string("text");
  w.f64s({1.5, -2.25}), w.i32s({3, -4}), w.u32s({5u});
  w.save(d / "c.ckpt");
  CheckpointWriter second;
  write_checkpoint_header(second, "md", "a = 1\nb = 2\n");
  second.save(d / "c.ckpt");
  EXPECT_EQ(bytes_of(d / "c.ckpt.prev").size(), 24 + w.payload().size());

  CheckpointReader r = CheckpointReader::load(d / "c.ckpt.prev");
  check_checkpoint_header(r, "md", "a = 1\nb = 2\n");
  EXPECT_EQ(r.i64(), -42);
  EXPECT_EQ(r.u64(), 7u);
  EXPECT_EQ(r.f64(), 0.1);
  EXPECT_EQ(r.string(), "text");
  EXPECT_EQ(r.f64s(), (std::vector<double>{1.5, -2.25}));
  EXPECT_EQ(r.i32s(), (std::vector<int>{3, -4}));
  EXPECT_EQ(r.u32s(), (std::vector<std::uint32_t>{5u}));
  r.expect_end();
  EXPECT_NE(error_of([&] { r.u64(); }).find("payload ends early"), std::string::npos);
  for (const auto& e : fs::directory_iterator(d))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos);
  fs::remove_all(d);
}

TEST(Checkpoint, DamagedFilesAreRefusedBeforeAnyFieldIsRead) {
  CheckpointWriter w;
  write_checkpoint_header(w, "nbody", "x = 1\n");
  w.f64s(std::vector<double>(100, 3.0));
  const fs::path d = fresh_dir("damaged");
  w.save(d / "c.ckpt");
  const auto good = bytes_of(d / "c.ckpt");
  EXPECT_NO_THROW(CheckpointReader::from_bytes(good, "good"));
  for (std::size_t at = 0; at < good.size(); at += 37) {  // every flipped byte is caught
    auto bad = good;
    bad[at] ^= 0x01;
    EXPECT_THROW(CheckpointReader::from_bytes(bad, "bad"), Error) << at;
  }
  auto flipped = good;
  flipped[good.size() - 3] ^= 0x80;
  EXPECT_NE(error_of([&] {
              CheckpointReader::from_bytes(flipped, "f.ckpt");
            }).find("corrupted checkpoint: the CRC-32 checksum does not match, f.ckpt"),
            std::string::npos);
  const std::vector<unsigned char> cut(good.begin(), good.end() - 8);
  EXPECT_NE(error_of([&] { CheckpointReader::from_bytes(cut, "t"); }).find("truncated"),
            std::string::npos);
  auto future = good;
  future[8] = 99;
  EXPECT_NE(error_of([&] {
              CheckpointReader::from_bytes(future, "v");
            }).find("checkpoint format version 99"),
            std::string::npos);
  // An array length larger than the payload is refused without allocating it.
  CheckpointWriter huge;
  huge.u64(std::uint64_t(1) << 60);
  huge.save(d / "h.ckpt");
  CheckpointReader h = CheckpointReader::load(d / "h.ckpt");
  EXPECT_NE(error_of([&] { h.f64s(); }).find("exceeds the payload"), std::string::npos);
  fs::remove_all(d);
}

TEST(Checkpoint, AnotherConfigurationIsRefusedNamingTheFirstDifferentKey) {
  CheckpointWriter w;
  write_checkpoint_header(w, "md", "a = 1\nb = 2\nc = 3\n");
  const fs::path d = fresh_dir("config");
  w.save(d / "c.ckpt");
  auto check = [&](std::string_view workload, std::string_view text) {
    return error_of([&] {
      CheckpointReader r = CheckpointReader::load(d / "c.ckpt");
      check_checkpoint_header(r, workload, text);
    });
  };
  EXPECT_EQ(check("md", "a = 1\nb = 2\nc = 3\n"), "");
  EXPECT_NE(check("md", "a = 1\nb = 5\nc = 3\n")
                .find("checkpoint from another configuration: it was written with 'b = 2', the "
                      "configuration has 'b = 5'"),
            std::string::npos);
  EXPECT_NE(check("md", "a = 1\nb = 2\n").find("'c = 3', the configuration has no 'c'"),
            std::string::npos);
  EXPECT_NE(check("ljc", "a = 1\n").find("checkpoint of workload 'md'"), std::string::npos);
  fs::remove_all(d);
}

TEST(GrowingFile, FlushedRecordsAreOnDiskAndARestartCutsBackAndAppends) {
  const fs::path d = fresh_dir("growing");
  std::uint64_t at = 0;
  {
    io::GrowingFile f(d / "g.txt", 2);
    f.stream() << "one\n";
    f.end_record();
    f.stream() << "two\n";
    f.end_record();  // the second record flushes
    EXPECT_EQ(fs::file_size(d / "g.txt"), 8u);
    at = f.flush();
    f.stream() << "three\n";
    f.close();
  }
  EXPECT_EQ(at, 8u);
  {
    io::GrowingFile f(d / "g.txt", at, 1);
    f.stream() << "again\n";
    f.close();
  }
  std::ifstream in(d / "g.txt");
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), "one\ntwo\nagain\n");
  EXPECT_THROW(io::GrowingFile(d / "missing.txt", 4, 1), Error);
  EXPECT_THROW(io::GrowingFile(d / "g.txt", 1000, 1), Error);  // shorter than the checkpoint said
  fs::remove_all(d);
}

TEST(GrowingFile, TemporaryFilesOfDeadProcessesAreRemovedAndReported) {
  const fs::path d = fresh_dir("stale");
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);  // a pid that no longer exists
  const std::string dead = std::to_string(child), alive = std::to_string(::getppid());
  for (const std::string& name :
       std::vector<std::string>{"a.csv.tmp." + dead, "b.dx.tmp." + alive, "notes.tmp.x", "c.csv"})
    std::ofstream(d / name) << "x";
  const std::string report = io::remove_stale_temp_files(d);
  EXPECT_NE(report.find("removed " + (d / ("a.csv.tmp." + dead)).string()), std::string::npos)
      << report;
  EXPECT_FALSE(fs::exists(d / ("a.csv.tmp." + dead)));
  EXPECT_TRUE(fs::exists(d / ("b.dx.tmp." + alive)));  // its process is running
  EXPECT_TRUE(fs::exists(d / "notes.tmp.x"));
  EXPECT_TRUE(fs::exists(d / "c.csv"));
  fs::remove_all(d);
}

TEST(StopSignals, ASignalSetsTheFlagAndASecondSigintKillsAtOnce) {
  EXPECT_EQ(stop_requested(), 0);
  {
    StopSignals guard;
    ::raise(SIGTERM);
    EXPECT_EQ(stop_requested(), SIGTERM);
    ::raise(SIGUSR1);  // the first signal is the one reported
    EXPECT_EQ(stop_requested(), SIGTERM);
    EXPECT_EQ(stop_exit_code(SIGTERM), 143);
    EXPECT_EQ(signal_name(SIGXCPU), "SIGXCPU");
  }
  {
    StopSignals guard;  // a new guard starts clean
    EXPECT_EQ(stop_requested(), 0);
  }
  const pid_t child = ::fork();
  if (child == 0) {
    StopSignals guard;
    ::raise(SIGINT);  // first: only the flag
    if (stop_requested() != SIGINT) ::_exit(3);
    ::raise(SIGINT);  // second: the default action
    ::_exit(4);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGINT);
}

}  // namespace
}  // namespace pairwise
