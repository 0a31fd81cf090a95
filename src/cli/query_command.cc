// `aiprof query [--output=]<PROF dir, Kineto trace or folder>...`: one line per run.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "export/query.h"

namespace aiprof::cli {

void AddQueryCommand(CLI::App& app) {
  auto inputs = std::make_shared<InputPaths>();
  CLI::App* sub = app.add_subcommand(
      "query",
      "List the runs (PROF_* directories, Kineto traces): job, devices, collection time, "
      "iterations, rank");
  inputs->AddTo(sub);
  sub->callback([inputs] {
    int code = exporter::RunQuery(inputs->All("aiprof query"), std::cout, std::cerr);
    if (code != kExitOk) throw CLI::RuntimeError(code);
  });
}

}  // namespace aiprof::cli
