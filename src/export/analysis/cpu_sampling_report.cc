#include "export/analysis/cpu_sampling_report.h"

#include <ostream>
#include <set>
#include <string>

#include "export/analysis/report_format.h"
#include "format/records_cpu.h"

namespace aiprof::exporter {
namespace {

using report::Line;

constexpr size_t kReportSamplingInfos = 5;

double Share(uint64_t part, uint64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string ThreadLabel(const model::Model& m, uint32_t thread) {
  std::string name(m.Str(m.threads.name[thread]));
  if (name.empty()) name = "thread";
  return name + " (pid " + std::to_string(m.processes.pid[m.threads.process[thread]]) + ", tid " +
         std::to_string(m.threads.tid[thread]) + ")";
}

// The first process's start; kCpuSamplingInfo records come one per start of each process
// and one per later event of note (the sampler's events reopened after the job closed them).
std::string ModeText(const model::Model& m) {
  const model::CpuSamplingRunTable& runs = m.cpu.runs;
  if (runs.size() == 0) return "mode not recorded";
  std::string text(m.Str(runs.reason[0]));
  std::set<uint32_t> processes(runs.process.begin(), runs.process.end());
  if (processes.size() > 1) text += "; " + std::to_string(processes.size()) + " processes";
  return text;
}

// The texts besides each process's first (what happened to sampling later: the sampler's
// perf events reopened after the job closed their descriptors, a start in a later window).
void PrintLaterSamplingInfos(const model::Model& m, std::ostream& out) {
  const model::CpuSamplingRunTable& runs = m.cpu.runs;
  std::set<uint32_t> started;
  size_t printed = 0;
  size_t more = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (started.insert(runs.process[i]).second) continue;
    if (printed == kReportSamplingInfos) {
      ++more;
      continue;
    }
    ++printed;
    out << Line("    pid %u: %s\n", m.processes.pid[runs.process[i]],
                std::string(m.Str(runs.reason[i])).c_str());
  }
  if (more > 0) {
    out << Line("    ... %zu more (the CPU_SAMPLING table of the SQLite export has them all)\n",
                more);
  }
}

}  // namespace

void PrintCpuSamplingReport(const model::Model& m, const analysis::AnalysisSet& set,
                            std::ostream& out) {
  if (m.cpu.samples.size() == 0) return;
  const analysis::CpuProfile& profile = set.cpu_profile;
  std::vector<analysis::ThreadCpuCost> costs = analysis::CpuCostByThread(m, profile);
  const analysis::ThreadCpuCost& all = costs.back();
  out << Line("  CPU sampling: %llu on-CPU samples in %zu threads (%s)\n",
              static_cast<unsigned long long>(all.samples), costs.size() - 1, ModeText(m).c_str());
  PrintLaterSamplingInfos(m, out);
  if (all.samples == 0) return;
  out << "    top functions (self / total of the samples):\n";
  for (size_t i = 0; i < all.functions.size() && i < kReportTopFunctions; ++i) {
    const analysis::FunctionCost& f = all.functions[i];
    out << Line("      %5.1f%% / %5.1f%%  %s", Share(f.self, all.samples),
                Share(f.total, all.samples), profile.function_name[f.function].c_str());
    const std::string& module = profile.function_module[f.function];
    if (!module.empty()) out << "  [" << module << "]";
    out << "\n";
  }
  out << "    per thread (samples, top function by self):\n";
  size_t threads = costs.size() - 1;
  for (size_t t = 0; t < threads && t < kReportCpuThreads; ++t) {
    const analysis::ThreadCpuCost& cost = costs[t];
    out << Line("      %-40s %8llu", ThreadLabel(m, cost.thread).c_str(),
                static_cast<unsigned long long>(cost.samples));
    if (!cost.functions.empty()) {
      const analysis::FunctionCost& top = cost.functions[0];
      out << Line("  %5.1f%% %s", Share(top.self, cost.samples),
                  profile.function_name[top.function].c_str());
    }
    out << "\n";
  }
  if (threads > kReportCpuThreads) {
    out << Line("      ... %zu more threads (cpu_sampling_summary_*.csv has them all)\n",
                threads - kReportCpuThreads);
  }
}

}  // namespace aiprof::exporter
