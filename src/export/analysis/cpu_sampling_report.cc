#include "export/analysis/cpu_sampling_report.h"

#include <ostream>
#include <string>

#include "export/analysis/report_format.h"
#include "format/records_cpu.h"

namespace aiprof::exporter {
namespace {

using report::Line;

double Share(uint64_t part, uint64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string ThreadLabel(const model::Model& m, uint32_t thread) {
  std::string name(m.Str(m.threads.name[thread]));
  if (name.empty()) name = "thread";
  return name + " (pid " + std::to_string(m.processes.pid[m.threads.process[thread]]) + ", tid " +
         std::to_string(m.threads.tid[thread]) + ")";
}

std::string ModeText(const model::Model& m) {
  if (m.cpu.runs.size() == 0) return "mode not recorded";
  std::string text(m.Str(m.cpu.runs.reason[0]));
  if (m.cpu.runs.size() > 1) text += "; " + std::to_string(m.cpu.runs.size()) + " processes";
  return text;
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
