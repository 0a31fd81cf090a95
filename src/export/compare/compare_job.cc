#include "export/compare/compare_job.h"

#include <filesystem>
#include <memory>
#include <ostream>

#include "analysis/analysis_set.h"
#include "export/compare/compare_files.h"
#include "export/compare/compare_report.h"
#include "export/exit_code.h"
#include "export/read_problems.h"
#include "format/output_layout.h"
#include "model/discovery.h"
#include "model/parser.h"

namespace aiprof::exporter {
namespace fs = std::filesystem;

namespace {

constexpr const char* kCommand = "aiprof compare";

// An export's own folders name the run they belong to: PROF_*/aiprof_output[/analysis].
fs::path RunDirOf(const std::string& given) {
  fs::path path = fs::path(given).lexically_normal();
  if (!path.has_filename()) path = path.parent_path();
  if (path.filename() == format::kAnalysisDir &&
      path.parent_path().filename() == format::kExportDir) {
    path = path.parent_path();
  }
  if (path.filename() == format::kExportDir) path = path.parent_path();
  return path.empty() ? fs::path(".") : path;
}

struct LoadedRun {
  fs::path dir;
  fs::path outputs;  // its aiprof_output folder (a trace's own: model::RunInput::output_dir)
  model::Model model;
};

// Every run under `dir` (PROF_* directories, Kineto traces) as one model; null and a message
// on bad input.
std::unique_ptr<LoadedRun> Load(const fs::path& dir, const char* side, unsigned threads,
                                std::ostream& err) {
  const model::InputDiscovery found = model::DiscoverRuns({dir.string()});
  for (const std::string& note : found.notes)
    err << kCommand << ": " << side << " run: " << note << "\n";
  if (found.runs.empty()) {
    err << kCommand << ": " << side << " run: " << found.error << "\n";
    return nullptr;
  }
  std::vector<std::string> files;
  for (const model::RunInput& found_run : found.runs) {
    files.insert(files.end(), found_run.files.begin(), found_run.files.end());
  }
  if (files.empty()) {
    err << kCommand << ": " << side << " run: " << dir.string()
        << " holds no raw data (expected PROF_*/host/data/*.data); is the collection still "
           "running or was the directory copied incompletely?\n";
    return nullptr;
  }
  auto run = std::make_unique<LoadedRun>();
  run->dir = dir;
  run->outputs = found.runs.size() == 1 && found.runs[0].kind == model::RunKind::kTrace
                     ? fs::path(found.runs[0].output_dir)
                     : dir / format::kExportDir;
  run->model = model::ParseFiles(files, {threads});
  ReportReadProblems(run->model, kCommand, err);
  if (run->model.records == 0) {
    err << kCommand << ": " << side << " run: " << dir.string()
        << ": no readable records; nothing to compare\n";
    return nullptr;
  }
  return run;
}

// The analyses of one side; false and a message when its --iteration-id matches no step.
bool Analyse(const LoadedRun& run, const std::optional<model::StepRange>& steps, const char* side,
             analysis::AnalysisSet* set, std::ostream& err) {
  std::vector<uint32_t> selected;
  std::string error;
  if (steps && !model::SelectSteps(run.model, *steps, &selected, &error)) {
    err << kCommand << ": " << side << " run: " << run.dir.string() << ": " << error << "\n";
    return false;
  }
  *set = analysis::RunAnalyses(run.model, {steps});
  return true;
}

}  // namespace

ExportResult RunCompare(const CompareJobOptions& options, std::ostream& out, std::ostream& err) {
  ExportResult result;
  const fs::path base_dir = RunDirOf(options.base);
  const fs::path comparison_dir =
      options.comparison.empty() ? base_dir : RunDirOf(options.comparison);
  std::error_code ec;
  const bool same_run = fs::equivalent(base_dir, comparison_dir, ec);

  std::unique_ptr<LoadedRun> base = Load(base_dir, "base", options.threads, err);
  if (!base) {
    result.exit_code = kExitUsage;
    return result;
  }
  std::unique_ptr<LoadedRun> loaded_comparison;
  if (!same_run) {
    loaded_comparison = Load(comparison_dir, "new", options.threads, err);
    if (!loaded_comparison) {
      result.exit_code = kExitUsage;
      return result;
    }
  }
  const LoadedRun& comparison = same_run ? *base : *loaded_comparison;

  analysis::AnalysisSet base_set, comparison_set;
  if (!Analyse(*base, options.base_steps, "base", &base_set, err) ||
      !Analyse(comparison, options.comparison_steps, "new", &comparison_set, err)) {
    result.exit_code = kExitUsage;
    return result;
  }
  analysis::RunComparison compared = analysis::CompareRuns(base->model, base_set, comparison.model,
                                                           comparison_set, {options.group_by});
  compared.base.label = base_dir.string();
  compared.comparison.label = comparison_dir.string();
  PrintCompareReport(compared, TerminalStyle(options.colour), out);

  const fs::path output_dir = options.output_dir.empty() ? comparison.outputs / format::kCompareDir
                                                         : fs::path(options.output_dir);
  fs::create_directories(output_dir, ec);
  if (ec) {
    err << kCommand << ": cannot create " << output_dir.string() << ": " << ec.message()
        << "; choose another directory with -o\n";
    result.exit_code = kExitFailure;
    return result;
  }
  std::vector<std::string> errors;
  WriteCompareFiles(compared, SummaryTarget{output_dir.string(), "", SummaryFormat::kCsv,
                                            &result.written, &errors});
  out << "\n";
  for (const std::string& path : result.written) out << "  " << path << "\n";
  for (const std::string& e : errors) err << kCommand << ": " << e << "\n";
  if (!errors.empty()) result.exit_code = kExitFailure;
  return result;
}

}  // namespace aiprof::exporter
