// The terminal report of `aiprof compare`: the two runs, notes, the step-breakdown deltas
// (mean per step of each paired scope), the top regressions and improvements of operators
// and kernels with their counts of added, removed, slower and faster names. Regressions in
// red and improvements in green when `style` colours.
#pragma once

#include <cstddef>
#include <iosfwd>

#include "analysis/compare/run_comparison.h"
#include "export/terminal_style.h"

namespace aiprof::exporter {

inline constexpr size_t kCompareReportRows = 10;  // per table

void PrintCompareReport(const analysis::RunComparison& comparison, const TerminalStyle& style,
                        std::ostream& out);

}  // namespace aiprof::exporter
