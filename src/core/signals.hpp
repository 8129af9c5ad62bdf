// Stopping long runs cleanly (DESIGN.md, Errors): while a StopSignals guard lives, SIGINT, SIGTERM,
// SIGUSR1 and SIGXCPU only set a flag; the run checks stop_requested() at step boundaries, finishes
// the step, closes its outputs valid, writes a checkpoint and exits with exit_code() = 128 +
// signal. A second SIGINT while a stop is pending restores the default action and re-raises it: the
// process dies at once (growing outputs stay valid up to their last flush; final files are temp +
// rename, so none is corrupt).
//
// Any long loop (potmap frames, fredholm iterations, bench cases) uses the same two calls:
//   pairwise::StopSignals guard;                       // installs the handlers (RAII)
//   for (...) { ...; if (pairwise::stop_requested()) break; }
//   if (int sig = pairwise::stop_requested()) return pairwise::stop_exit_code(sig);
//
// Tests: PAIRWISE_TEST_SIGNAL_AT_STEP="k" (or "k:SIGNUM") makes maybe_raise_test_signal(step) raise
// SIGTERM (or SIGNUM) once, through the real handler, at the first step boundary >= k, so a test
// can interrupt a run at a chosen point.
#pragma once

#include <cstdint>
#include <string>

namespace pairwise {

class StopSignals {
 public:
  StopSignals();   // installs the handlers and clears any pending stop
  ~StopSignals();  // restores the previous handlers
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
};

// The signal number that asked the run to stop, 0 if none: the decision every rank takes alike.
// With many ranks (mpirun) it is an all-reduce (parallel::world(), the largest signal number any
// rank received), so a signal delivered to one rank only, or to every rank at different steps,
// stops all of them at the same step with the same exit code: call it at the same points on every
// rank (the step boundaries of the run loops are). With one rank it reads the flag, nothing more.
int stop_requested();
// The stop signal this process received, 0 if none (no communication; async-signal-safe read).
int stop_signal_received() noexcept;
// 128 + signal (the shell's convention for a process ended by a signal).
inline int stop_exit_code(int signal_number) {
  return 128 + signal_number;
}
// "SIGTERM", "SIGINT", ... (or "signal N").
std::string signal_name(int signal_number);
// Raises the test signal if PAIRWISE_TEST_SIGNAL_AT_STEP names `step` (see the top of this file).
void maybe_raise_test_signal(std::int64_t step);

}  // namespace pairwise
