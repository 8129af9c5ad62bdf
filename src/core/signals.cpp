#include "core/signals.hpp"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

#include "parallel/communicator.hpp"

namespace pairwise {

namespace {

volatile std::sig_atomic_t g_stop_signal = 0;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGUSR1, SIGXCPU};
struct sigaction g_previous[sizeof kSignals / sizeof kSignals[0]];
int g_depth = 0;  // nested guards share one installation

extern "C" void on_stop_signal(int sig) {
  if (sig == SIGINT && g_stop_signal != 0) {
    // Second Ctrl-C: the user wants out now. Default action, re-raised (async-signal-safe calls).
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
    return;
  }
  if (g_stop_signal == 0) g_stop_signal = sig;
}

}  // namespace

StopSignals::StopSignals() {
  if (g_depth++ > 0) return;
  g_stop_signal = 0;
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // interrupted reads and writes resume: the flag is checked later
  for (std::size_t k = 0; k < sizeof kSignals / sizeof kSignals[0]; ++k)
    sigaction(kSignals[k], &action, &g_previous[k]);
}

StopSignals::~StopSignals() {
  if (--g_depth > 0) return;
  for (std::size_t k = 0; k < sizeof kSignals / sizeof kSignals[0]; ++k)
    sigaction(kSignals[k], &g_previous[k], nullptr);
}

int stop_requested() {
  parallel::Communicator& comm = parallel::world();
  if (comm.size() == 1) return g_stop_signal;
  std::int64_t signal_number = g_stop_signal;
  comm.allreduce_max(std::span<std::int64_t>(&signal_number, 1));
  return static_cast<int>(signal_number);
}

int stop_signal_received() noexcept {
  return g_stop_signal;
}

std::string signal_name(int signal_number) {
  switch (signal_number) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGXCPU:
      return "SIGXCPU";
    default:
      return "signal " + std::to_string(signal_number);
  }
}

void maybe_raise_test_signal(std::int64_t step) {
  static const char* spec = std::getenv("PAIRWISE_TEST_SIGNAL_AT_STEP");
  static bool raised = false;
  if (!spec || !*spec || raised) return;
  char* end = nullptr;
  const long long at = std::strtoll(spec, &end, 10);
  if (step < at) return;
  raised = true;
  const int sig = (end && *end == ':') ? std::atoi(end + 1) : SIGTERM;
  std::raise(sig);
}

}  // namespace pairwise
