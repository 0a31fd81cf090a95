// `aiprof query --output=<PROF dir or parent>`: one line per PROF_* directory.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "export/query.h"

namespace aiprof::cli {

void AddQueryCommand(CLI::App& app) {
  auto output = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand(
      "query", "List PROF_* directories: job, devices, collection time, iterations, rank");
  sub->add_option("--output,-o", *output, "PROF_* directory or a parent of several")->required();
  sub->callback([output] {
    int code = exporter::RunQuery(*output, std::cout, std::cerr);
    if (code != kExitOk) throw CLI::RuntimeError(code);
  });
}

}  // namespace aiprof::cli
