// `aiprof compare <base> [<new>] [--iteration-id=A[,B]] [--group-by=name|shape]
//  [-o <dir>]`: HTA TraceDiff / msprof-analyze compare style deltas of two runs, or of two
// steps of one run (docs/compare.md).
#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli/command.h"
#include "export/compare/compare_job.h"
#include "export/terminal_style.h"

namespace aiprof::cli {
namespace {

// "A" or "A,B", each N or N-M; false and a message otherwise.
bool ParseIterations(const std::string& text, exporter::CompareJobOptions* options,
                     std::string* error) {
  const size_t comma = text.find(',');
  const std::string first = text.substr(0, comma);
  model::StepRange base;
  if (!model::ParseStepRange(first, &base, error)) return false;
  model::StepRange comparison = base;
  if (comma != std::string::npos &&
      !model::ParseStepRange(text.substr(comma + 1), &comparison, error)) {
    return false;
  }
  options->base_steps = base;
  options->comparison_steps = comparison;
  return true;
}

}  // namespace

void AddCompareCommand(CLI::App& app) {
  struct Values {
    std::string base, comparison, iteration, group_by = "name", output_path;
  };
  auto values = std::make_shared<Values>();
  CLI::App* sub = app.add_subcommand(
      "compare",
      "Compare two runs (or two steps of one run): per-operator and per-kernel deltas, "
      "step-breakdown deltas, largest regressions first; writes compare_*.csv");
  sub->add_option("base", values->base,
                  "base run: a PROF_* directory, a parent of several, or its aiprof_output")
      ->required();
  sub->add_option("new", values->comparison,
                  "run compared with the base (same forms); omitted: the base again, for "
                  "--iteration-id=A,B");
  sub->add_option("--iteration-id", values->iteration,
                  "A: both runs restricted to step A; A,B: base step A vs new step B "
                  "(each N or N-M)");
  sub->add_option("--group-by", values->group_by,
                  "match operators by name, or by name and input shapes (shape)")
      ->check(CLI::IsMember({"name", "shape"}));
  sub->add_option("-o,--output-path", values->output_path,
                  "directory for the CSV files (default: <new>/aiprof_output/compare)");
  sub->callback([values] {
    exporter::CompareJobOptions options;
    options.base = values->base;
    options.comparison = values->comparison;
    if (!values->iteration.empty()) {
      std::string error;
      if (!ParseIterations(values->iteration, &options, &error)) {
        std::cerr << "aiprof compare: --iteration-id=" << values->iteration << ": " << error
                  << " (expected A or A,B, each N or N-M)\n";
        throw CLI::RuntimeError(kExitUsage);
      }
    }
    const bool two_steps =
        options.base_steps && (options.base_steps->first != options.comparison_steps->first ||
                               options.base_steps->last != options.comparison_steps->last);
    if (options.comparison.empty() && !two_steps) {
      std::cerr << "aiprof compare: give the new run after the base, or two steps of the base "
                   "with --iteration-id=A,B\n";
      throw CLI::RuntimeError(kExitUsage);
    }
    options.group_by = values->group_by == "shape" ? analysis::CompareGroupBy::kNameAndShape
                                                   : analysis::CompareGroupBy::kName;
    options.output_dir = values->output_path;
    options.colour = exporter::ColourWanted(STDOUT_FILENO);
    exporter::ExportResult result = exporter::RunCompare(options, std::cout, std::cerr);
    if (result.exit_code != kExitOk) throw CLI::RuntimeError(result.exit_code);
  });
}

}  // namespace aiprof::cli
