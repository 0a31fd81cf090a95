#include "export/compare/compare_report.h"

#include <cmath>
#include <ostream>
#include <string>

#include "export/analysis/analysis_files.h"
#include "export/analysis/report_format.h"

namespace aiprof::exporter {
namespace {

using analysis::Change;
using analysis::NameDelta;
using report::Line;
using report::Ms;

constexpr size_t kStepScopesShown = 4;

std::string RunLine(const analysis::ComparedRun& run) {
  std::string text = run.label + " (";
  if (run.iterations) {
    text += "step" +
            (run.iterations->first == run.iterations->last
                 ? " " + std::to_string(run.iterations->first)
                 : "s " + std::to_string(run.iterations->first) + "-" +
                       std::to_string(run.iterations->last)) +
            ", ";
  }
  text += std::to_string(run.steps) + " step(s) from " +
          std::string(analysis::StepSourceName(run.step_source)) + ", " +
          (run.device_run ? "CUDA" : "CPU-only") + ", " + std::to_string(run.dropped_records) +
          " dropped records)";
  return text;
}

std::string RatioText(double ratio) {
  return std::isinf(ratio) ? "new" : Line("%.2fx", ratio);
}

std::string Coloured(const TerminalStyle& style, double diff, const std::string& text) {
  if (diff > 0) return style.Red(text);
  if (diff < 0) return style.Green(text);
  return text;
}

void PrintSteps(const analysis::RunComparison& c, const TerminalStyle& style, std::ostream& out) {
  size_t shown = 0, means = 0;
  // Without steps the one row per scope is the whole collection.
  const bool whole = c.base.step_source == analysis::StepSource::kNone &&
                     c.comparison.step_source == analysis::StepSource::kNone;
  for (const analysis::StepDelta& row : c.steps) {
    if (!row.mean) continue;
    ++means;
    if (shown == kStepScopesShown) continue;
    ++shown;
    auto side = [whole](int32_t device_id, uint32_t pid, uint64_t steps) {
      return ScopeDeviceId(device_id, pid) +
             (whole ? "" : " (" + std::to_string(steps) + " step(s))");
    };
    out << "\n"
        << style.Bold(std::string(whole ? "Step breakdown, whole collection (no steps): "
                                        : "Step breakdown, mean per step: ") +
                      side(row.device_id, row.base_pid, row.base_steps) + " vs " +
                      side(row.device_id, row.comparison_pid, row.comparison_steps) +
                      (row.rank >= 0 ? ", rank " + std::to_string(row.rank) : ""))
        << "\n"
        << Line("  %-30s %12s %12s %12s %9s\n", "figure", "base(ms)", "new(ms)", "diff(ms)",
                "diff");
    for (size_t f = 0; f < analysis::kStepFigureCount; ++f) {
      const auto figure = static_cast<analysis::StepFigure>(f);
      const double diff = row.diff_ns(figure), ratio = row.ratio(figure);
      const std::string share = std::isinf(ratio) ? "new" : Line("%+.1f%%", 100.0 * (ratio - 1));
      out << Line("  %-30s %12.3f %12.3f ", std::string(analysis::StepFigureName(figure)).c_str(),
                  row.base[f] / 1e6, row.comparison[f] / 1e6)
          << Coloured(style, diff, Line("%+12.3f %9s", diff / 1e6, share.c_str())) << "\n";
    }
  }
  if (means == 0) out << "\nStep breakdown: no scope with steps on both sides\n";
  if (means > shown) {
    out << "  (" << means - shown << " more scope(s) in compare_steps.csv)\n";
  }
}

void PrintRow(size_t rank, const NameDelta& d, const TerminalStyle& style, std::ostream& out) {
  const std::string calls =
      d.base.calls == d.comparison.calls
          ? std::to_string(d.base.calls)
          : std::to_string(d.base.calls) + "->" + std::to_string(d.comparison.calls);
  std::string name = d.name + " [" + d.type + "]";
  if (!d.input_shape.empty()) name += " (" + d.input_shape + ")";
  out << Line("  %4zu  ", rank)
      << Coloured(style, static_cast<double>(d.diff_total_ns()),
                  Line("%-9s %+12.3f", std::string(analysis::ChangeName(d.change())).c_str(),
                       Ms(d.diff_total_ns())))
      << Line(" %12.3f %12.3f %8s %13s  %s\n", Ms(d.base.total_ns), Ms(d.comparison.total_ns),
              RatioText(d.total_ratio()).c_str(), calls.c_str(), name.c_str());
}

void PrintNameDeltas(const char* what, const std::vector<NameDelta>& deltas,
                     const TerminalStyle& style, std::ostream& out) {
  if (deltas.empty()) {
    out << "\n" << style.Bold(std::string(what) + ": none in either run") << "\n";
    return;
  }
  size_t counts[5] = {0, 0, 0, 0, 0};
  for (const NameDelta& d : deltas) ++counts[static_cast<size_t>(d.change())];
  out << "\n"
      << style.Bold(Line("%s: %zu compared: %zu slower, %zu faster, %zu added, %zu removed, %zu "
                         "unchanged",
                         what, deltas.size(), counts[static_cast<size_t>(Change::kSlower)],
                         counts[static_cast<size_t>(Change::kFaster)],
                         counts[static_cast<size_t>(Change::kAdded)],
                         counts[static_cast<size_t>(Change::kRemoved)],
                         counts[static_cast<size_t>(Change::kUnchanged)]))
      << "\n";
  const std::string header = Line("  %4s  %-9s %12s %12s %12s %8s %13s  %s\n", "rank", "change",
                                  "diff(ms)", "base(ms)", "new(ms)", "ratio", "calls", "name");
  size_t regressions = 0;
  while (regressions < deltas.size() && deltas[regressions].diff_total_ns() > 0) ++regressions;
  if (regressions == 0) {
    out << "  no regression: no total time grew\n";
  } else {
    out << "  top regressions (by change of total time)\n" << header;
    for (size_t i = 0; i < regressions && i < kCompareReportRows; ++i) {
      PrintRow(i + 1, deltas[i], style, out);
    }
  }
  size_t improvements = 0;
  while (improvements < deltas.size() &&
         deltas[deltas.size() - 1 - improvements].diff_total_ns() < 0) {
    ++improvements;
  }
  if (improvements > 0) {
    out << "  top improvements\n" << header;
    for (size_t i = 0; i < improvements && i < kCompareReportRows; ++i) {
      const size_t row = deltas.size() - 1 - i;
      PrintRow(row + 1, deltas[row], style, out);
    }
  }
}

}  // namespace

void PrintCompareReport(const analysis::RunComparison& c, const TerminalStyle& style,
                        std::ostream& out) {
  out << style.Bold("aiprof compare") << "\n  base: " << RunLine(c.base)
      << "\n  new:  " << RunLine(c.comparison) << "\n";
  for (const std::string& note : c.notes) out << "  note: " << note << "\n";
  PrintSteps(c, style, out);
  PrintNameDeltas("Operators", c.operators, style, out);
  PrintNameDeltas("Kernels", c.kernels, style, out);
}

}  // namespace aiprof::exporter
