// Parse and export throughput on a generated data set (default 10 M records, written as the
// runtime writes them: zstd-compressed chunks, TSC clock). Each measured pipeline runs in a
// forked child so its peak RSS is its own. Prints medians over --runs.
// The stage lines time each exporter alone after one parse and one run of the analyses
// (analysis/analysis_set.h); "all stages in sequence" is their sum in one process (text and
// database, which no single command writes). The last two lines are the commands a user
// runs, `aiprof export --type=text` and `--type=db`, through the one export job.
//
//   bench_export [--events=N] [--runs=R] [--dir=PATH] [--keep] [--generate-only]
// --generate-only writes the data set into --dir and stops (the UI bench loads it).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/analysis_set.h"
#include "export/analysis/analysis_files.h"
#include "export/csv/summaries.h"
#include "export/export_job.h"
#include "export/sqlite/sqlite_exporter.h"
#include "export/timeline/trace_json.h"
#include "model/parser.h"
#include "support/raw_data_builder.h"

namespace {

namespace fs = std::filesystem;
using aiprof::testing::RawProcessWriter;

// Framework-like load: per thread, steps of 1000 operators; each operator is a push/pop
// pair with one nested child (4 records); a counter every 100 operators.
uint64_t Generate(const fs::path& prof, uint64_t events, uint64_t* raw_bytes) {
  fs::create_directories(prof / "host" / "data");
  constexpr uint32_t kPid = 1000, kThreads = 4;
  constexpr double kTicksPerNs = 3.0;
  const uint64_t base_ns = 1'000'000'000'000;
  std::string metadata =
      aiprof::testing::MetadataJson(kPid, "bench", true, 3e9, 0, 1'700'000'000'000'000'000, 0);
  RawProcessWriter w((prof / "host" / "data" / "aiprof.1000.data").string(), kPid, metadata, true);
  static const char* kOps[] = {"aten::mm",     "aten::add",  "aten::relu", "aten::conv2d",
                               "aten::matmul", "aten::sum",  "aten::mul",  "aten::softmax",
                               "aten::copy_",  "aten::view", "aten::t",    "aten::empty"};
  uint64_t written = 0, op = 0, ns = 0;
  auto ticks = [&](uint64_t t) { return static_cast<uint64_t>((base_ns + t) * kTicksPerNs); };
  w.ClockSync(ticks(0), base_ns, base_ns + 1'700'000'000'000'000'000);
  uint32_t step = 0;
  while (written < events) {
    ++step;
    for (uint32_t t = 0; t < kThreads; ++t) w.StepBegin(100 + t, ticks(ns), step);
    written += kThreads;
    for (int i = 0; i < 1000 && written < events; ++i, ++op) {
      for (uint32_t t = 0; t < kThreads; ++t) {
        uint32_t tid = 100 + t;
        w.Push(tid, ticks(ns + 10), kOps[op % 12]);
        w.Push(tid, ticks(ns + 20), kOps[(op + 5) % 12]);
        w.Pop(tid, ticks(ns + 400));
        w.Pop(tid, ticks(ns + 500));
        written += 4;
        if (op % 100 == 0) {
          w.Counter(tid, ticks(ns + 30), "memory", static_cast<double>(op),
                    aiprof::format::CounterScope::kProcess, kPid, "bytes");
          ++written;
        }
      }
      ns += 600;
    }
    for (uint32_t t = 0; t < kThreads; ++t) w.StepEnd(100 + t, ticks(ns), step);
    written += kThreads;
    ns += 100;
    if (step % 4 == 0) {
      w.ClockSync(ticks(ns), base_ns + ns, base_ns + ns + 1'700'000'000'000'000'000);
      w.Flush();
    }
  }
  w.ClockSync(ticks(ns), base_ns + ns, base_ns + ns + 1'700'000'000'000'000'000);
  w.Close();
  *raw_bytes = fs::file_size(prof / "host" / "data" / "aiprof.1000.data");
  return written;
}

struct Sample {
  double seconds;      // wall
  double cpu_seconds;  // user + system of the child
  long peak_rss_kb;
};

double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Runs `work` in a child; returns its wall time and peak RSS.
Sample Measure(const std::function<void()>& work) {
  auto start = std::chrono::steady_clock::now();
  pid_t child = fork();
  if (child == 0) {
    work();
    _exit(0);
  }
  int status = 0;
  rusage usage{};
  wait4(child, &status, 0, &usage);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "measured child failed\n");
    std::exit(1);
  }
  double cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
               static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  return {seconds, cpu, usage.ru_maxrss};
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t events = 10'000'000;
  int runs = 3;
  bool keep = false;
  bool generate_only = false;
  fs::path dir = fs::temp_directory_path() / ("aiprof_bench_export_" + std::to_string(getpid()));
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--events=", 0) == 0) events = std::stoull(arg.substr(9));
    if (arg.rfind("--runs=", 0) == 0) runs = std::max(1, std::stoi(arg.substr(7)));
    if (arg.rfind("--dir=", 0) == 0) dir = arg.substr(6);
    if (arg == "--keep") keep = true;
    if (arg == "--generate-only") generate_only = true;
    // --benchmark_* flags from scripts/bench.sh are accepted and ignored.
  }
  fs::path prof = dir / "PROF_000001_20260101000000000_BENCHEXPORT00001";
  fs::remove_all(dir);
  uint64_t raw_bytes = 0;
  uint64_t records = Generate(prof, events, &raw_bytes);
  std::printf("data set: %llu records, %.1f MB raw (%.2f bytes/record, zstd chunks)\n",
              static_cast<unsigned long long>(records), raw_bytes / 1e6,
              static_cast<double>(raw_bytes) / static_cast<double>(records));
  if (generate_only) {
    std::printf("data set written to %s\n", prof.string().c_str());
    return 0;
  }

  fs::path out = dir / "out";
  fs::create_directories(out);
  auto parse = [&] { return aiprof::model::ParseProfDir(prof.string()); };
  // CPU seconds (the build machine is shared, so wall time mostly measures the neighbours);
  // wall times are printed alongside.
  std::vector<double> parse_s, analyses_s, summaries_s, timeline_s, db_s, total_s, parse_wall_s,
      total_wall_s;
  std::vector<double> text_s, text_wall_s, db_command_s, db_command_wall_s;
  long parse_rss = 0, total_rss = 0, text_rss = 0, db_command_rss = 0;
  for (int r = 0; r < runs; ++r) {
    Sample p = Measure([&] { parse(); });
    parse_s.push_back(p.cpu_seconds);
    parse_wall_s.push_back(p.seconds);
    parse_rss = std::max(parse_rss, p.peak_rss_kb);
    // Stage timings inside one child: parse once, then each exporter.
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return 1;
    Sample total = Measure([&] {
      aiprof::model::Model m = parse();
      std::vector<std::string> written, errors;
      double ta = CpuSeconds();
      const aiprof::analysis::AnalysisSet analyses = aiprof::analysis::RunAnalyses(m);
      double t0 = CpuSeconds();
      // As aiprof export does: the summaries read the step trace and the communication
      // classification from the analyses.
      aiprof::exporter::SummaryTarget target{
          out.string(), "1", aiprof::exporter::SummaryFormat::kCsv, &written, &errors};
      target.analyses = &analyses;
      aiprof::exporter::WriteAllSummaries(m, target);
      aiprof::exporter::WriteAnalysisOutputs(m, analyses, out.string(), false,
                                             aiprof::exporter::SummaryFormat::kCsv, &written,
                                             &errors);
      double t1 = CpuSeconds();
      std::string error;
      aiprof::exporter::WriteTraceJson(m, (out / "trace_view_1.json").string(), &error,
                                       &analyses.overlap);
      double t2 = CpuSeconds();
      aiprof::exporter::WriteSqlite(m, (out / "aiprof_1.db").string(), &error, &analyses);
      double t3 = CpuSeconds();
      double stages[4] = {t1 - t0, t2 - t1, t3 - t2, t0 - ta};
      if (write(pipe_fds[1], stages, sizeof(stages)) != sizeof(stages)) _exit(1);
    });
    double stages[4] = {};
    if (read(pipe_fds[0], stages, sizeof(stages)) != sizeof(stages)) return 1;
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    summaries_s.push_back(stages[0]);
    timeline_s.push_back(stages[1]);
    db_s.push_back(stages[2]);
    analyses_s.push_back(stages[3]);
    total_s.push_back(total.cpu_seconds);
    total_wall_s.push_back(total.seconds);
    total_rss = std::max(total_rss, total.peak_rss_kb);
    // The commands a user runs: `aiprof export --type=text` and `--type=db`, through the
    // one export job (its default two threads: the timeline beside the summaries).
    for (auto type : {aiprof::exporter::ExportType::kText, aiprof::exporter::ExportType::kDb}) {
      Sample command = Measure([&] {
        aiprof::exporter::ExportOptions options;
        options.output = prof.string();
        options.type = type;
        options.clear = true;
        options.timestamp = "3";
        std::ostringstream sink;
        if (aiprof::exporter::RunExport(options, sink, sink).exit_code != 0) _exit(1);
      });
      bool text = type == aiprof::exporter::ExportType::kText;
      (text ? text_s : db_command_s).push_back(command.cpu_seconds);
      (text ? text_wall_s : db_command_wall_s).push_back(command.seconds);
      long& rss = text ? text_rss : db_command_rss;
      rss = std::max(rss, command.peak_rss_kb);
    }
  }
  double n = static_cast<double>(records);
  double plain_bytes = n * 16.0;  // the same records uncompressed
  std::printf("median of %d runs, CPU seconds (wall in brackets):\n", runs);
  std::printf(
      "  parse                 %7.3f s  %6.2f M records/s  [%.3f s]  peak RSS %.1f MB"
      " (%.2fx uncompressed raw)\n",
      Median(parse_s), n / Median(parse_s) / 1e6, Median(parse_wall_s), parse_rss / 1e3,
      parse_rss * 1e3 / plain_bytes);
  std::printf("  analyses (all)        %7.3f s  %6.2f M records/s\n", Median(analyses_s),
              n / Median(analyses_s) / 1e6);
  std::printf("  summaries (all CSV)   %7.3f s  %6.2f M records/s\n", Median(summaries_s),
              n / Median(summaries_s) / 1e6);
  std::printf(
      "  timeline JSON         %7.3f s  %6.2f M records/s  %.1f MB\n", Median(timeline_s),
      n / Median(timeline_s) / 1e6,
      fs::exists(out / "trace_view_1.json") ? fs::file_size(out / "trace_view_1.json") / 1e6 : 0.0);
  std::printf("  SQLite db             %7.3f s  %6.2f M records/s\n", Median(db_s),
              n / Median(db_s) / 1e6);
  std::printf(
      "  all stages in sequence %7.3f s  %6.2f M records/s  [%.3f s]  peak RSS %.1f MB"
      " (%.2fx uncompressed raw)\n",
      Median(total_s), n / Median(total_s) / 1e6, Median(total_wall_s), total_rss / 1e3,
      total_rss * 1e3 / plain_bytes);
  auto print_command = [&](const char* name, const std::vector<double>& cpu,
                           const std::vector<double>& wall, long rss) {
    std::printf(
        "  %-26s %7.3f s  %6.2f M records/s  [%.3f s = %.2f M records/s]  peak RSS %.1f MB"
        " (%.2fx uncompressed raw)\n",
        name, Median(cpu), n / Median(cpu) / 1e6, Median(wall), n / Median(wall) / 1e6, rss / 1e3,
        rss * 1e3 / plain_bytes);
  };
  print_command("aiprof export --type=text", text_s, text_wall_s, text_rss);
  print_command("aiprof export --type=db", db_command_s, db_command_wall_s, db_command_rss);
  if (!keep) fs::remove_all(dir);
  return 0;
}
