// `aiprof advise [--output=]<PROF dir, Kineto trace or folder>[,<more>...]
// [--config=thresholds.json]
//  [--iteration-id=N|N-M] [--report-dir=DIR]`: tuning advice over one or several profiles
// (several ranks: the slow-rank rule compares them). Colour on a terminal unless NO_COLOR
// is set.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli/command.h"
#include "export/advise_job.h"
#include "export/terminal_style.h"

namespace aiprof::cli {

void AddAdviseCommand(CLI::App& app) {
  struct Values {
    InputPaths inputs;
    std::string config, iteration, report_dir;
  };
  auto values = std::make_shared<Values>();
  CLI::App* sub = app.add_subcommand(
      "advise",
      "Tuning advice from PROF_* data: ranked findings (data loading, host bound, slow steps "
      "and ranks, utilisation, communication, memory, operators, synchronisation, kernels); "
      "writes advice.json and advice.html");
  values->inputs.AddTo(sub);
  sub->add_option(
      "--config", values->config,
      "JSON file of threshold overrides, e.g. {\"data_loading\": {\"step_share\": 0.1}} "
      "(docs/advice.md lists them)");
  sub->add_option("--iteration-id", values->iteration, "advise on step N or steps N-M only");
  sub->add_option(
      "--report-dir", values->report_dir,
      "where advice.json and advice.html go (default: <output>/aiprof_output/analysis)");
  sub->callback([values] {
    exporter::AdviseOptions options;
    options.outputs = values->inputs.All("aiprof advise");
    options.config = values->config;
    options.report_dir = values->report_dir;
    options.color = exporter::ColourWanted(STDOUT_FILENO);
    if (!values->iteration.empty()) {
      model::StepRange range;
      std::string error;
      if (!model::ParseStepRange(values->iteration, &range, &error)) {
        std::cerr << "aiprof advise: " << error << "\n";
        throw CLI::RuntimeError(kExitUsage);
      }
      options.iterations = range;
    }
    exporter::ExportResult result = exporter::RunAdvise(options, std::cout, std::cerr);
    if (result.exit_code != kExitOk) throw CLI::RuntimeError(result.exit_code);
  });
}

}  // namespace aiprof::cli
