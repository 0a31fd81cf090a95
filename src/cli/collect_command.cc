// `aiprof collect [options] <app> [args]`: launch-mode collection (msprof
// `msprof [options] <app>`).
#include <memory>

#include "cli/collect_options.h"
#include "cli/command.h"
#include "cli/launcher.h"

namespace aiprof::cli {

void AddCollectCommand(CLI::App& app) {
  auto args = std::make_shared<CollectArgs>();
  CLI::App* collect = app.add_subcommand(
      "collect", "Run an application and profile it: aiprof collect [options] <app> [args]");
  collect->prefix_command();  // everything from the app on belongs to the app
  AddCollectOptions(collect, args.get());
  collect->final_callback([collect, args] {
    args->app = collect->remaining();
    if (!args->app.empty() && args->app.front() == "--") args->app.erase(args->app.begin());
    if (RejectOptionTakenForApp(args->app, "aiprof collect")) throw CLI::RuntimeError(kExitUsage);
    NoteExplicitOptions(*collect, args.get());
    CollectConfig config;
    std::string error;
    if (!ResolveCollectArgs(*args, DetectMachine(), &config, &error)) {
      std::cerr << "aiprof collect: " << error << "\n";
      throw CLI::RuntimeError(kExitUsage);
    }
    int code = RunCollection(config);
    throw CLI::RuntimeError(code);
  });
}

}  // namespace aiprof::cli
