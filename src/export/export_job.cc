#include "export/export_job.h"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <functional>
#include <future>
#include <ostream>
#include <sstream>
#include <thread>

#include "analysis/analysis_set.h"
#include "analysis/op_statistics.h"
#include "analysis/step_trace.h"
#include "export/advice/advice_writers.h"
#include "export/analysis/analysis_files.h"
#include "export/cpu/cpu_outputs.h"
#include "export/csv/summaries.h"
#include "export/cuda/cuda_summaries.h"
#include "export/exit_code.h"
#include "export/export_lock.h"
#include "export/iteration_selection.h"
#include "export/progress.h"
#include "export/read_problems.h"
#include "export/run_inputs.h"
#include "export/sqlite/sqlite_exporter.h"
#include "export/timeline/pftrace.h"
#include "export/timeline/trace_json.h"
#include "format/output_layout.h"
#include "model/huge_pages.h"
#include "model/parser.h"

namespace aiprof::exporter {
namespace fs = std::filesystem;

namespace {

// Removes what earlier export runs wrote (--clear=on): aiprof_output/ and aiprof_*.db.
void ClearOutputs(const fs::path& prof_dir) {
  std::error_code ec;
  fs::remove_all(prof_dir / format::kExportDir, ec);
  for (const auto& entry : fs::directory_iterator(prof_dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("aiprof_", 0) == 0 && entry.path().extension() == ".db") {
      fs::remove(entry.path(), ec);
    }
  }
}

// Where one PROF_* directory's deliverables go, and how they are named.
struct OutputPlace {
  fs::path dir;  // the text outputs (and, with fixed names, the database)
  FileNaming naming = FileNaming::kTimestamped;
};

bool IsPtResultFolder(const fs::path& dir) {
  const std::string name = dir.filename().string();
  for (const char* suffix : {"_aiprof_pt", "_ascend_pt"}) {
    const std::string_view tail(suffix);
    if (name.size() > tail.size() &&
        name.compare(name.size() - tail.size(), tail.size(), tail) == 0)
      return true;
  }
  return false;
}

size_t CountProfDirs(const fs::path& dir) {
  size_t count = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_directory(ec) &&
        entry.path().filename().string().rfind(format::kProfDirPrefix, 0) == 0)
      ++count;
  }
  return count;
}

// Fixed names need one PROF_* per result folder, or the files of two would overwrite each
// other: a folder holding several keeps msprof's per-PROF_* layout. An imported trace's
// outputs go to <its folder>/aiprof_output/<its name>/ (model::RunInput::output_dir).
OutputPlace PlaceOutputs(const model::RunInput& run, const std::optional<FileNaming>& requested) {
  if (run.kind == model::RunKind::kTrace) {
    return {fs::path(run.output_dir), requested.value_or(FileNaming::kTimestamped)};
  }
  const fs::path prof(run.path);
  const fs::path parent = prof.parent_path();
  const bool single_in_pt_folder = IsPtResultFolder(parent) && CountProfDirs(parent) == 1;
  const FileNaming naming =
      requested.value_or(single_in_pt_folder ? FileNaming::kFixed : FileNaming::kTimestamped);
  if (naming == FileNaming::kFixed && single_in_pt_folder)
    return {parent / format::kExportDir, naming};
  return {prof / format::kExportDir, naming};
}

// A few lines for the terminal: where the time went and how long the steps took.
std::string ShortSummary(const model::Model& m, const analysis::AnalysisSet& analyses) {
  std::ostringstream out;
  // Per-slice lists on huge pages, reserved once (model/huge_pages.h).
  const std::vector<uint8_t> is_step = model::StepRangeMask(m);
  std::vector<uint32_t> rows, groups;
  model::ReserveOnHugePages(rows, m.slices.size());
  model::ReserveOnHugePages(groups, m.slices.size());
  for (uint32_t row = 0; row < m.slices.size(); ++row) {
    if (is_step[row]) continue;
    rows.push_back(row);
    groups.push_back(m.slices.category[row]);
  }
  auto stats = analysis::StatisticsByNameAndGroup(m, rows, groups);
  if (!stats.empty()) out << "  top by total time:\n";
  char line[256];
  for (size_t i = 0; i < stats.size() && i < 5; ++i) {
    std::string name(m.Str(stats[i].name).substr(0, 48));
    std::snprintf(line, sizeof(line), "    %-48s %-16s %10llu calls %14.3f us\n", name.c_str(),
                  std::string(m.Str(stats[i].group)).c_str(),
                  static_cast<unsigned long long>(stats[i].count),
                  static_cast<double>(stats[i].total_ns) / 1e3);
    out << line;
  }
  const std::vector<analysis::StepTraceRow>& steps = analyses.step_breakdown.trace;
  if (steps.empty()) return out.str();
  int64_t total = 0;
  size_t longest = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    total += steps[i].iteration_time_ns();
    if (steps[i].iteration_time_ns() > steps[longest].iteration_time_ns()) longest = i;
  }
  const std::string label = analyses.steps.Label(steps[longest].step, steps[longest].loop);
  std::snprintf(line, sizeof(line), "  steps: %zu, mean %.3f us, longest: step %s (%.3f us)\n",
                steps.size(), static_cast<double>(total) / static_cast<double>(steps.size()) / 1e3,
                label.c_str(), static_cast<double>(steps[longest].iteration_time_ns()) / 1e3);
  out << line;
  return out.str();
}

}  // namespace

std::string LocalTimestamp() {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[16];
  std::strftime(text, sizeof(text), "%Y%m%d%H%M%S", &local);
  return text;
}

namespace {

// The export's timestamp: the caller's, else now, and never the previous export's (its
// names have seconds resolution).
std::string ChooseTimestamp(const ExportOptions& options, const ExportLocks& locks) {
  std::string timestamp = options.timestamp.empty() ? LocalTimestamp() : options.timestamp;
  for (int waited = 0;
       options.timestamp.empty() && waited < 30 && timestamp <= locks.previous_timestamp();
       ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    timestamp = LocalTimestamp();
  }
  return timestamp;
}

// What one directory's export writes, and where its files and errors go.
struct DirectoryExport {
  const ExportOptions& options;
  const model::RunInput& run;
  const fs::path& prof;
  const OutputPlace& place;
  const std::string& timestamp;
  const model::Model& model;
  // Running beside the database writer when it has a second thread; done before the text
  // outputs.
  const std::shared_future<analysis::AnalysisSet>& analyses;
  CommunicationOutputs& communication;
  std::vector<std::string>& written;
  std::vector<std::string>& errors;
};

void WriteDatabase(const DirectoryExport& job) {
  // msprof keeps the database beside the data; torch_npu in its output folder; an imported
  // trace's goes to its own output folder.
  std::string path = (job.prof / ("aiprof_" + job.timestamp + ".db")).string();
  if (job.run.kind == model::RunKind::kTrace) {
    std::error_code ec;
    fs::create_directories(job.place.dir, ec);
    path = (job.place.dir / ("aiprof_" + job.timestamp + ".db")).string();
  } else if (job.place.naming == FileNaming::kFixed) {
    std::error_code ec;
    fs::create_directories(job.place.dir, ec);
    path = (job.place.dir / "aiprof_pytorch_profiler.db").string();
  }
  std::string error;
  const AnalysesWait analyses = [&job] { return &job.analyses.get(); };
  if (WriteSqlite(job.model, path, &error, analyses,
                  {.threads = static_cast<int>(job.options.threads)})) {
    job.written.push_back(path);
    job.communication.Add(job.analyses.get().communication_analysis, "", path);
  } else {
    job.errors.push_back(error);
  }
}

// The timeline (on a thread of its own when allowed: the exporters only read the model),
// the summaries, the analysis files and the advice. False when the output folder cannot be
// created.
bool WriteTextOutputs(const DirectoryExport& job, std::ostream& err) {
  const model::Model& m = job.model;
  const analysis::AnalysisSet& analyses = job.analyses.get();
  const fs::path& output_dir = job.place.dir;
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec) {
    err << "aiprof export: cannot create " << output_dir.string() << ": " << ec.message() << "\n";
    return false;
  }
  bool perfetto = job.options.timeline_format == TimelineFormat::kPerfetto;
  SummaryTarget target{output_dir.string(), job.timestamp, job.options.summary_format};
  target.naming = job.place.naming;
  target.analyses = &analyses;
  std::string timeline =
      (output_dir / OutputFileName(target, "trace_view", perfetto ? ".pftrace" : ".json")).string();
  bool timeline_ok = false;
  std::string timeline_error;
  auto write_timeline = [&] {
    timeline_ok =
        perfetto
            ? WritePerfettoTrace(m, timeline, &timeline_error, &analyses.overlap, &analyses.memory,
                                 &analyses.cpu_profile, &analyses.critical_path)
            : WriteTraceJson(m, timeline, &timeline_error, &analyses.overlap, &analyses.memory,
                             &analyses.cpu_profile, &analyses.critical_path);
  };
  std::jthread timeline_thread;
  if (job.options.threads > 1) {
    timeline_thread = std::jthread(write_timeline);
  } else {
    write_timeline();
  }
  std::vector<std::string> summaries_written;
  target.written = &summaries_written;
  target.errors = &job.errors;
  WriteAllSummaries(m, target);
  exporter::WriteCudaSummaries(m, target);
  WriteAnalysisOutputs(m, analyses, output_dir.string(), false, job.options.summary_format,
                       &summaries_written, &job.errors, job.place.naming, &job.communication);
  WriteCpuSamplingOutputs(m, target);
  // Next to the analyses, with their fixed names: aiprof advise writes there too.
  fs::create_directories(output_dir / format::kAnalysisDir, ec);
  const std::string advice_path = (output_dir / format::kAnalysisDir / "advice.json").string();
  std::string error;
  if (WriteProfileAdvice(m, analyses, job.prof.filename().string(), advice_path, &error)) {
    summaries_written.push_back(advice_path);
  } else {
    job.errors.push_back(error);
  }
  if (timeline_thread.joinable()) timeline_thread.join();
  if (timeline_ok) {
    job.written.push_back(timeline);
  } else {
    job.errors.push_back(timeline_error);
  }
  job.written.insert(job.written.end(), summaries_written.begin(), summaries_written.end());
  return true;
}

enum class DirectoryOutcome { kExported, kFailed, kUsageError };

// Parses one run (a PROF_* directory or an imported trace), runs the analyses once and
// writes every output of it.
DirectoryOutcome ExportDirectory(const ExportOptions& options, const model::RunInput& run,
                                 const std::string& timestamp,
                                 const std::function<void(double, const std::string&)>& step,
                                 CommunicationOutputs& communication, ExportResult& result,
                                 Progress& progress, std::ostream& out, std::ostream& err) {
  const fs::path prof(run.path);
  if (run.files.empty()) {
    err << "aiprof export: " << NoDataMessage(run) << "\n";
    return DirectoryOutcome::kUsageError;
  }
  step(0.0, "parsing");
  model::Model parsed = model::ParseFiles(run.files, {options.threads});
  ReportReadProblems(parsed, "aiprof export", err);
  if (parsed.records == 0) {
    err << "aiprof export: " << prof.string() << ": no readable records; nothing exported\n";
    return DirectoryOutcome::kFailed;
  }
  IterationSelection selection;
  if (!selection.Select(parsed, options.iterations, "aiprof export", prof.string(), err)) {
    return DirectoryOutcome::kUsageError;
  }
  const model::Model& m = selection.model();
  const OutputPlace place = PlaceOutputs(run, options.naming);
  if (options.clear) {
    if (run.kind == model::RunKind::kRaw) ClearOutputs(prof);
    std::error_code ec;
    fs::remove_all(place.dir, ec);
  }
  step(0.2, "analyses");
  // The database's model tables need no analysis: with a second thread the analyses run
  // beside them (the writer waits for them where it needs them).
  const bool beside_database = options.type == ExportType::kDb && options.threads > 1;
  const std::shared_future<analysis::AnalysisSet> analyses =
      std::async(beside_database ? std::launch::async : std::launch::deferred, [&] {
        return analysis::RunAnalyses(m, {options.iterations, options.critical_path});
      }).share();
  // With a second thread the terminal's summary is computed beside the database too (once
  // the analyses are done), not after it.
  std::future<std::string> summary =
      std::async(beside_database ? std::launch::async : std::launch::deferred,
                 [&] { return ShortSummary(m, analyses.get()); });
  std::vector<std::string> errors;
  const size_t written_before = result.written.size();
  const DirectoryExport job{options, run,      prof,          place,          timestamp,
                            m,       analyses, communication, result.written, errors};
  if (options.type == ExportType::kDb) {
    step(0.4, "database");
    WriteDatabase(job);
  } else {
    step(0.3, "timeline and summaries");
    if (!WriteTextOutputs(job, err)) return DirectoryOutcome::kFailed;
  }
  for (const auto& e : errors) err << "aiprof export: " << e << "\n";
  progress.Done();
  out << prof.string() << ": " << m.slices.size() << " slices, " << m.instants.size()
      << " instants, " << m.counters.size() << " counter samples, " << m.drops.total()
      << " dropped events\n";
  for (size_t i = written_before; i < result.written.size(); ++i) {
    out << "  " << result.written[i] << "\n";
  }
  out << summary.get();
  return errors.empty() ? DirectoryOutcome::kExported : DirectoryOutcome::kFailed;
}

}  // namespace

ExportResult RunExport(const ExportOptions& options, std::ostream& out, std::ostream& err) {
  ExportResult result;
  std::vector<std::string> inputs = {options.output};
  inputs.insert(inputs.end(), options.more_outputs.begin(), options.more_outputs.end());
  std::vector<model::RunInput> runs;
  if (!FindRuns(inputs, "aiprof export", err, &runs)) {
    result.exit_code = kExitUsage;
    return result;
  }
  // One export per directory at a time (export_lock.h), and never the names of the last one.
  std::vector<std::string> lock_dirs;
  for (const model::RunInput& run : runs) lock_dirs.push_back(ExportLockDir(run));
  ExportLocks locks;
  locks.Acquire(lock_dirs, err);
  const std::string timestamp = ChooseTimestamp(options, locks);
  std::vector<std::string> output_dirs;
  for (const model::RunInput& run : runs) {
    output_dirs.push_back(ExportLockDir(run));
    output_dirs.push_back(PlaceOutputs(run, options.naming).dir.string());
  }
  locks.Record(timestamp, output_dirs);
  Progress progress(options.progress_lines);
  size_t exported = 0;
  bool failed = false, usage_error = false;
  CommunicationOutputs communication;
  for (size_t d = 0; d < runs.size(); ++d) {
    const model::RunInput& run = runs[d];
    const fs::path prof(run.path);
    auto step = [&](double within, const std::string& label) {
      progress.Update((static_cast<double>(d) + within) / static_cast<double>(runs.size()),
                      prof.filename().string() + ": " + label);
    };
    switch (
        ExportDirectory(options, run, timestamp, step, communication, result, progress, out, err)) {
      case DirectoryOutcome::kExported:
        ++exported;
        break;
      case DirectoryOutcome::kFailed:
        failed = true;
        break;
      case DirectoryOutcome::kUsageError:
        usage_error = true;
        break;
    }
  }
  progress.Done();
  // The communication files wait for every rank of the run: the wait needs the peers.
  failed |= !communication.FinishAndReport("aiprof export", &result.written, out, err);
  result.exit_code = ExitCodeOfDirectories(failed, usage_error, exported);
  return result;
}

}  // namespace aiprof::exporter
