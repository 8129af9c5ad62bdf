// pairwise: the command line. Exit codes: 0 success, 1 bad input or a failed run ("error: <what>,
// <where>" on stderr), 2 command-line usage errors.
#include <iostream>
#include <new>
#include <vector>

#include "commands.hpp"
#include "pairwise/error.hpp"

int main(int argc, char** argv) {
  using namespace pairwise::cli;
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
      if (command.app->parsed()) return command.run();
    }
    std::cerr << app.help();
    return 2;
  } catch (const pairwise::Error& e) {
    std::cerr << "error: " << e.what() << "\n";  // what() is "<what>, <where>"
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of host memory\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
  }
  return 1;
}
