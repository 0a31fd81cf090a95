// `aiprof export [--output=]<PROF dir, Kineto trace or folder>... [--type=text|db]
// [--iteration-id=N|N-M]
//  [--summary-format=csv|json] [--timeline-format=json|perfetto] [--clear=on|off]
//  [--critical-path=on|off]`
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "export/export_job.h"

namespace aiprof::cli {

void AddExportCommand(CLI::App& app) {
  struct Values {
    InputPaths inputs;
    std::string type = "text", iteration, summary_format = "csv", timeline_format = "json",
                clear = "off", critical_path = "off";
  };
  auto values = std::make_shared<Values>();
  CLI::App* sub = app.add_subcommand(
      "export",
      "Export PROF_* raw data or Kineto traces: timeline, msprof-style summaries, or an SQLite "
      "database");
  values->inputs.AddTo(sub);
  sub->add_option("--type", values->type, "text (timeline + summaries) or db (SQLite)")
      ->check(CLI::IsMember({"text", "db"}));
  sub->add_option("--iteration-id", values->iteration, "export only step N or steps N-M");
  sub->add_option("--summary-format", values->summary_format, "csv or json")
      ->check(CLI::IsMember({"csv", "json"}));
  sub->add_option("--timeline-format", values->timeline_format,
                  "json (Chrome/Kineto trace) or perfetto (.pftrace protobuf)")
      ->check(CLI::IsMember({"json", "perfetto"}));
  sub->add_option("--clear", values->clear, "on: remove outputs of earlier exports first")
      ->check(CLI::IsMember({"on", "off"}));
  sub->add_option("--critical-path", values->critical_path,
                  "on: also the critical path of each step and what-if projections (files, "
                  "tables, a timeline lane, advice's projected savings)")
      ->check(CLI::IsMember({"on", "off"}));
  sub->callback([values] {
    exporter::ExportOptions options;
    const std::vector<std::string> inputs = values->inputs.All("aiprof export");
    options.output = inputs.front();
    options.more_outputs.assign(inputs.begin() + 1, inputs.end());
    options.type = values->type == "db" ? exporter::ExportType::kDb : exporter::ExportType::kText;
    options.summary_format = values->summary_format == "json" ? exporter::SummaryFormat::kJson
                                                              : exporter::SummaryFormat::kCsv;
    options.timeline_format = values->timeline_format == "perfetto"
                                  ? exporter::TimelineFormat::kPerfetto
                                  : exporter::TimelineFormat::kJson;
    options.clear = values->clear == "on";
    options.critical_path = values->critical_path == "on";
    if (!values->iteration.empty()) {
      model::StepRange range;
      std::string error;
      if (!model::ParseStepRange(values->iteration, &range, &error)) {
        std::cerr << "aiprof export: " << error << "\n";
        throw CLI::RuntimeError(kExitUsage);
      }
      options.iterations = range;
    }
    exporter::ExportResult result = exporter::RunExport(options, std::cout, std::cerr);
    if (result.exit_code != kExitOk) throw CLI::RuntimeError(result.exit_code);
  });
}

}  // namespace aiprof::cli
