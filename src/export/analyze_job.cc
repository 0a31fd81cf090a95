#include "export/analyze_job.h"

#include <filesystem>
#include <ostream>

#include "analysis/analysis_set.h"
#include "export/analysis/analysis_files.h"
#include "export/analysis/analysis_report.h"
#include "export/analysis/critical_path_report.h"
#include "export/critical_path_job.h"
#include "export/exit_code.h"
#include "export/export_lock.h"
#include "export/iteration_selection.h"
#include "export/read_problems.h"
#include "export/run_inputs.h"
#include "format/output_layout.h"
#include "model/parser.h"

namespace aiprof::exporter {
namespace fs = std::filesystem;

namespace {

constexpr const char* kCommand = "aiprof analyze";

}  // namespace

ExportResult RunAnalyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err) {
  ExportResult result;
  std::string error;
  std::vector<model::RunInput> runs;
  if (!FindRuns(options.inputs, kCommand, err, &runs)) {
    result.exit_code = kExitUsage;
    return result;
  }
  // It writes analysis files where exports do: one at a time (export_lock.h).
  std::vector<std::string> lock_dirs;
  for (const model::RunInput& run : runs) lock_dirs.push_back(ExportLockDir(run));
  ExportLocks locks;
  locks.Acquire(lock_dirs, err);
  size_t analysed = 0;
  bool failed = false, usage_error = false;
  CommunicationOutputs communication;
  for (const model::RunInput& run : runs) {
    const fs::path prof(run.path);
    if (run.files.empty()) {
      err << kCommand << ": " << NoDataMessage(run) << "\n";
      usage_error = true;
      continue;
    }
    model::Model parsed = model::ParseFiles(run.files, {options.threads});
    ReportReadProblems(parsed, kCommand, err);
    if (parsed.records == 0) {
      err << kCommand << ": " << prof.string() << ": no readable records; nothing analysed\n";
      failed = true;
      continue;
    }
    IterationSelection selection;
    if (!selection.Select(parsed, options.iterations, kCommand, prof.string(), err)) {
      usage_error = true;
      continue;
    }
    const model::Model* m = &selection.model();
    analysis::AnalysisSet set =
        analysis::RunAnalyses(*m, {options.iterations, options.critical_path});
    std::vector<std::string> written, errors;
    WriteAnalysisOutputs(*m, set, run.output_dir, options.type == ExportType::kDb,
                         options.summary_format, &written, &errors, FileNaming::kTimestamped,
                         &communication);
    out << prof.string() << ": analysis of " << m->slices.size() << " slices, " << m->drops.total()
        << " dropped events\n";
    PrintAnalysisReport(*m, set, out);
    if (options.critical_path && runs.size() == 1) PrintCriticalPathReport(*m, set, out);
    for (const std::string& path : written) out << "  " << path << "\n";
    for (const std::string& e : errors) err << kCommand << ": " << e << "\n";
    if (!errors.empty()) failed = true;
    result.written.insert(result.written.end(), written.begin(), written.end());
    ++analysed;
  }
  // The communication files wait for every rank of the run: the wait needs the peers.
  failed |= !communication.FinishAndReport(kCommand, &result.written, out, err);
  if (options.critical_path && runs.size() > 1 && analysed > 0) {
    std::vector<std::string> job_written;
    failed |= !RunJobCriticalPath(runs, options, out, err, &job_written);
    for (const std::string& path : job_written) out << "  " << path << "\n";
    result.written.insert(result.written.end(), job_written.begin(), job_written.end());
  }
  result.exit_code = ExitCodeOfDirectories(failed, usage_error, analysed);
  return result;
}

}  // namespace aiprof::exporter
