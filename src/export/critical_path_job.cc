#include "export/critical_path_job.h"

#include <filesystem>
#include <ostream>

#include "analysis/analysis_set.h"
#include "export/analysis/critical_path_files.h"
#include "export/analysis/critical_path_report.h"
#include "export/iteration_selection.h"
#include "export/read_problems.h"
#include "export/run_inputs.h"
#include "export/sqlite/analysis_tables.h"
#include "model/parser.h"

namespace aiprof::exporter {

namespace {

// The files of every run, parsed into one model.
model::Model ParseTogether(const std::vector<model::RunInput>& runs, unsigned threads,
                           std::string_view command, std::ostream& err) {
  std::vector<std::string> files;
  for (const model::RunInput& run : runs)
    files.insert(files.end(), run.files.begin(), run.files.end());
  model::Model parsed = model::ParseFiles(files, {threads});
  ReportReadProblems(parsed, command, err);
  return parsed;
}

}  // namespace

bool JobWhatIfs(const std::vector<model::RunInput>& runs,
                const std::optional<model::StepRange>& iterations, unsigned threads,
                std::string_view command, std::ostream& err,
                std::vector<analysis::WhatIfSummary>* what_ifs) {
  const model::Model parsed = ParseTogether(runs, threads, command, err);
  if (parsed.records == 0) return false;
  IterationSelection selection;
  if (!selection.Select(parsed, iterations, command, "the run", err)) return false;
  const analysis::AnalysisSet set = analysis::RunAnalyses(selection.model(), {iterations, true});
  *what_ifs = set.critical_path.what_ifs;
  return true;
}

bool RunJobCriticalPath(const std::vector<model::RunInput>& runs, const AnalyzeOptions& options,
                        std::ostream& out, std::ostream& err, std::vector<std::string>* written) {
  constexpr const char* kCommand = "aiprof analyze";
  const model::Model parsed = ParseTogether(runs, options.threads, kCommand, err);
  if (parsed.records == 0) {
    err << kCommand << ": no readable records for the run's critical path\n";
    return false;
  }
  IterationSelection selection;
  if (!selection.Select(parsed, options.iterations, kCommand, "the run", err)) return false;
  const model::Model& m = selection.model();
  const analysis::AnalysisSet set = analysis::RunAnalyses(m, {options.iterations, true});
  const std::filesystem::path dir = JobAnalysisDir(options.inputs);
  out << dir.parent_path().parent_path().string() << ": critical path of the run (" << runs.size()
      << " runs parsed together: " << set.inputs.Describe() << ")\n";
  PrintCriticalPathReport(m, set, out);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    err << kCommand << ": cannot create " << dir.string() << ": " << ec.message() << "\n";
    return false;
  }
  std::vector<std::string> errors;
  if (options.type == ExportType::kDb) {
    std::string path = (dir / "critical_path.db").string(), error;
    if (WriteAnalysisDb(m, set, path, &error)) {
      written->push_back(path);
    } else {
      errors.push_back(error);
    }
  } else {
    WriteCriticalPathFiles(
        m, set, SummaryTarget{dir.string(), "", options.summary_format, written, &errors});
  }
  for (const std::string& e : errors) err << kCommand << ": " << e << "\n";
  return errors.empty();
}

}  // namespace aiprof::exporter
