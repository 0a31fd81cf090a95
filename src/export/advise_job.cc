#include "export/advise_job.h"

#include <filesystem>
#include <memory>
#include <ostream>

#include "analysis/advice/engine.h"
#include "analysis/analysis_set.h"
#include "export/advice/advice_writers.h"
#include "export/critical_path_job.h"
#include "export/exit_code.h"
#include "export/iteration_selection.h"
#include "export/read_problems.h"
#include "export/run_inputs.h"
#include "format/output_layout.h"
#include "model/parser.h"

namespace aiprof::exporter {
namespace fs = std::filesystem;

namespace {

constexpr const char* kCommand = "aiprof advise";

}  // namespace

ExportResult RunAdvise(const AdviseOptions& options, std::ostream& out, std::ostream& err) {
  ExportResult result;
  analysis::advice::Thresholds thresholds = analysis::advice::Thresholds::Defaults();
  std::string error;
  if (!options.config.empty() && !thresholds.LoadOverrides(options.config, &error)) {
    err << kCommand << ": --config=" << error << "\n";
    result.exit_code = kExitUsage;
    return result;
  }
  std::vector<model::RunInput> runs;
  if (!FindRuns(options.outputs, kCommand, err, &runs)) {
    result.exit_code = kExitUsage;
    return result;
  }
  // Each profile's analyses stay alive for the rules; its model is freed once its facts are
  // read, so memory holds one model at a time.
  std::vector<std::unique_ptr<analysis::AnalysisSet>> sets;
  analysis::advice::AdviceInput input;
  for (const model::RunInput& run : runs) {
    const fs::path prof(run.path);
    const std::vector<std::string>& files = run.files;
    if (files.empty()) {
      err << kCommand << ": " << NoDataMessage(run) << "\n";
      result.exit_code = kExitUsage;
      return result;
    }
    model::Model parsed = model::ParseFiles(files, {options.threads});
    ReportReadProblems(parsed, kCommand, err);
    if (parsed.records == 0) {
      err << kCommand << ": " << prof.string() << ": no readable records; nothing to advise on\n";
      result.exit_code = kExitFailure;
      return result;
    }
    IterationSelection selection;
    if (!selection.Select(parsed, options.iterations, kCommand, prof.string(), err)) {
      result.exit_code = kExitUsage;
      return result;
    }
    const model::Model* m = &selection.model();
    sets.push_back(std::make_unique<analysis::AnalysisSet>(
        analysis::RunAnalyses(*m, {options.iterations, true})));
    input.profiles.push_back(
        analysis::advice::MakeProfileInput(*m, *sets.back(), prof.filename().string()));
  }
  // Ranks given as separate directories: their collectives' wait (and so transit and
  // bandwidth) needs the other ranks' operations, as aiprof export derives it.
  std::vector<analysis::CommunicationAnalysis*> ranks;
  for (auto& set : sets) ranks.push_back(&set->communication_analysis);
  analysis::DerivePeerWaitAcrossRanks(ranks);
  // The findings' projected savings: with several directories, from the job's critical path
  // (the directories parsed together once more).
  std::vector<analysis::WhatIfSummary> job_what_ifs;
  if (runs.size() > 1 &&
      JobWhatIfs(runs, options.iterations, options.threads, kCommand, err, &job_what_ifs)) {
    input.job_what_ifs = &job_what_ifs;
  }
  const analysis::advice::AdviceReport report = analysis::advice::RunAdvice(input, thresholds);
  PrintAdviceReport(report, out, {options.color, 5});

  // Beside the data: a trace's own output folder, else <common parent>/aiprof_output.
  fs::path report_dir(options.report_dir);
  if (report_dir.empty() && runs.size() == 1 && runs[0].kind == model::RunKind::kTrace) {
    report_dir = fs::path(runs[0].output_dir) / format::kAnalysisDir;
  } else if (report_dir.empty()) {
    report_dir = JobAnalysisDir(options.outputs);
  }
  std::error_code ec;
  fs::create_directories(report_dir, ec);
  if (ec) {
    err << kCommand << ": cannot create " << report_dir.string() << ": " << ec.message()
        << "; choose another place with --report-dir\n";
    result.exit_code = kExitFailure;
    return result;
  }
  out << "\n";
  for (const char* name : {"advice.json", "advice.html"}) {
    const std::string path = (report_dir / name).string();
    const bool ok = std::string(name) == "advice.json" ? WriteAdviceJson(report, path, &error)
                                                       : WriteAdviceHtml(report, path, &error);
    if (!ok) {
      err << kCommand << ": " << error << "\n";
      result.exit_code = kExitFailure;
      continue;
    }
    out << "  " << path << "\n";
    result.written.push_back(path);
  }
  return result;
}

}  // namespace aiprof::exporter
