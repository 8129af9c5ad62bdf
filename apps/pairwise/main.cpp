// pairwise: the command line. Exit codes: 0 success, 1 bad input or a failed run ("error: <what>,
// <where>" on stderr), 2 command-line usage errors.
#include <iostream>
#include <new>
#include <vector>

#include "commands.hpp"
#include "pairwise/error.hpp"
#include "parallel/communicator.hpp"

int main(int argc, char** argv) {
  using namespace pairwise::cli;
  // Under mpirun (an MPI build): MPI_Init here, MPI_Finalize at return; a rank that fails ends
  // every rank (parallel::fail_all), so none waits forever in a collective.
  pairwise::parallel::Session ranks(argc, argv);
  CLI::App app{
      "pairwise: pairwise-interaction simulations (N-body gravity, potential maps, Fredholm "
      "equations,\n"
      "LJ + Coulomb molecules, LJ molecular dynamics) on NVIDIA GPUs\n"
      "and multi-core CPUs. Run `pairwise <command> --help` for the options of a command."};
  app.set_version_flag("--version", std::string("pairwise ") + PAIRWISE_VERSION);
  app.require_subcommand(1);
  const std::vector<Command> commands = {add_info_command(app),     add_run_command(app),
                                         add_bench_command(app),    add_potmap_command(app),
                                         add_fredholm_command(app), add_rng_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints help, the version or the usage error
    return code == 0 ? 0 : 2;
  }
  try {
    for (const auto& command : commands) {
      if (!command.app->parsed()) continue;
      const int code = command.run();
      if (code != 0 && pairwise::parallel::world().size() > 1)
        pairwise::parallel::world().abort_all(code);  // the others may wait for this rank
      return code;
    }
    std::cerr << app.help();
    return 2;
  } catch (const pairwise::Error& e) {
    pairwise::parallel::fail_all(e.what());  // what() is "<what>, <where>"
  } catch (const std::bad_alloc&) {
    pairwise::parallel::fail_all("out of host memory");
  } catch (const std::exception& e) {
    pairwise::parallel::fail_all(e.what());
  }
  return 1;
}
