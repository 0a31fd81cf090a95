// `aiprof analyze [--output=]<PROF dir, Kineto trace, or a folder of them>... [--type=text|db]
//  [--iteration-id=N|N-M] [--summary-format=csv|json] [--critical-path]`; msprof's
// `--analyze=on` form is rewritten to it (main.cc).
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "export/analyze_job.h"

namespace aiprof::cli {

void AddAnalyzeCommand(CLI::App& app) {
  struct Values {
    InputPaths inputs;
    std::string type = "text", iteration, summary_format = "csv";
    bool critical_path = false;
  };
  auto values = std::make_shared<Values>();
  CLI::App* sub = app.add_subcommand(
      "analyze",
      "Analyse PROF_* raw data or Kineto traces: step breakdown, compute/communication overlap, "
      "top operators; prints a report and writes aiprof_output/analysis/");
  values->inputs.AddTo(sub);
  sub->add_option("--type", values->type, "text (CSV/JSON files) or db (analysis.db)")
      ->check(CLI::IsMember({"text", "db"}));
  sub->add_option("--iteration-id", values->iteration, "analyse only step N or steps N-M");
  sub->add_option("--summary-format", values->summary_format, "csv or json (with --type=text)")
      ->check(CLI::IsMember({"csv", "json"}));
  sub->add_flag("--critical-path", values->critical_path,
                "print each step's critical path across threads, streams, DataLoader workers "
                "and ranks, and what-if projections (several PROF_* directories: also parsed "
                "together as one run)");
  sub->callback([values] {
    exporter::AnalyzeOptions options;
    options.inputs = values->inputs.All("aiprof analyze");
    options.critical_path = values->critical_path;
    options.type = values->type == "db" ? exporter::ExportType::kDb : exporter::ExportType::kText;
    options.summary_format = values->summary_format == "json" ? exporter::SummaryFormat::kJson
                                                              : exporter::SummaryFormat::kCsv;
    if (!values->iteration.empty()) {
      model::StepRange range;
      std::string error;
      if (!model::ParseStepRange(values->iteration, &range, &error)) {
        std::cerr << "aiprof analyze: " << error << "\n";
        throw CLI::RuntimeError(kExitUsage);
      }
      options.iterations = range;
    }
    exporter::ExportResult result = exporter::RunAnalyze(options, std::cout, std::cerr);
    if (result.exit_code != kExitOk) throw CLI::RuntimeError(result.exit_code);
  });
}

}  // namespace aiprof::cli
