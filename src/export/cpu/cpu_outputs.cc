#include "export/cpu/cpu_outputs.h"

#include <filesystem>
#include <fstream>

#include "analysis/analysis_set.h"
#include "format/records_cpu.h"

namespace aiprof::exporter {

namespace {

std::string ThreadLabel(const model::Model& m, uint32_t thread) {
  if (thread == model::kNoRow) return "all";
  std::string name(m.Str(m.threads.name[thread]));
  return (name.empty() ? "thread" : name) + " " + std::to_string(m.threads.tid[thread]);
}

void WriteSummary(const model::Model& m, const analysis::CpuProfile& profile,
                  const SummaryTarget& target) {
  constexpr size_t kTopPerThread = 50;
  std::vector<analysis::ThreadCpuCost> costs = analysis::CpuCostByThread(m, profile);
  double period_ms = 0;
  if (m.cpu.runs.size() > 0 && m.cpu.runs.freq_hz[0] > 0) period_ms = 1e3 / m.cpu.runs.freq_hz[0];
  SummaryWriter w(target, "cpu_sampling_summary",
                  {"Process ID", "Thread ID", "Thread", "Function", "Module", "Self Samples",
                   "Self(%)", "Total Samples", "Total(%)", "Self Time(ms)", "Thread Samples"},
                  costs.size() * kTopPerThread);
  for (const analysis::ThreadCpuCost& t : costs) {
    bool all = t.thread == model::kNoRow;
    for (size_t i = 0; i < t.functions.size() && i < kTopPerThread; ++i) {
      const analysis::FunctionCost& f = t.functions[i];
      if (all) {
        w.PlainText("all").PlainText("all");
      } else {
        w.Unsigned(m.processes.pid[m.threads.process[t.thread]]).Unsigned(m.threads.tid[t.thread]);
      }
      w.Text(ThreadLabel(m, t.thread))
          .Text(profile.function_name[f.function])
          .Text(profile.function_module[f.function])
          .Unsigned(f.self)
          .Real(100.0 * static_cast<double>(f.self) / static_cast<double>(t.samples))
          .Unsigned(f.total)
          .Real(100.0 * static_cast<double>(f.total) / static_cast<double>(t.samples))
          .Real(static_cast<double>(f.self) * period_ms)
          .Unsigned(t.samples);
      w.EndRow();
    }
  }
}

bool WriteFolded(const std::map<std::string, uint64_t>& folded, const std::string& path,
                 std::string* error) {
  std::ofstream out(path, std::ios::binary);
  for (const auto& [stack, count] : folded) {
    if (count > 0) out << stack << ' ' << count << '\n';
  }
  out.close();
  if (!out) *error = "cannot write " + path;
  return static_cast<bool>(out);
}

}  // namespace

void WriteCpuSamplingOutputs(const model::Model& m, const SummaryTarget& target) {
  if (m.cpu.samples.size() == 0) return;
  // The export job's AnalysisSet symbolised the samples once for every output.
  analysis::CpuProfile own;
  if (target.analyses == nullptr) own = analysis::SymbolizeCpuProfile(m);
  const analysis::CpuProfile& profile =
      target.analyses != nullptr ? target.analyses->cpu_profile : own;
  for (const std::string& warning : profile.warnings) {
    target.errors->push_back("CPU samples: " + warning);
  }
  WriteSummary(m, profile, target);
  auto path = [&](const std::string& name, const std::string& extension) {
    return (std::filesystem::path(target.dir) / (name + "_" + target.timestamp + extension))
        .string();
  };
  std::string error;
  auto done = [&](bool ok, const std::string& file) {
    if (ok) {
      target.written->push_back(file);
    } else {
      target.errors->push_back(error);
    }
  };
  std::map<std::string, uint64_t> on_cpu = analysis::FoldedStacks(m, profile, false);
  std::string file = path("cpu_stacks", ".folded");
  done(WriteFolded(on_cpu, file, &error), file);
  file = path("cpu_flamegraph", ".svg");
  done(WriteFlameGraphSvg(on_cpu, "On-CPU samples", "samples", file, &error), file);
  std::map<std::string, uint64_t> off_cpu = analysis::FoldedStacks(m, profile, true);
  if (!off_cpu.empty()) {
    file = path("offcpu_stacks", ".folded");
    done(WriteFolded(off_cpu, file, &error), file);
    file = path("offcpu_flamegraph", ".svg");
    done(WriteFlameGraphSvg(off_cpu, "Off-CPU time (blocked)", "us", file, &error), file);
  }
  file = path("cpu_profile", ".pb.gz");
  done(WritePprofProfile(m, profile, file, &error), file);
}

}  // namespace aiprof::exporter
