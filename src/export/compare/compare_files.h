// The files of `aiprof compare` (docs/compare.md explains every column), through the one
// SummaryWriter from the comparison's column descriptions (analysis/compare/
// compare_columns.h), with msprof-analyze compare's column names where they fit:
//   compare_operators.csv  per operator (type, name, input shapes): Base / Comparison /
//                          Diff calls, total, mean, self, max, min time (µs), ratios
//   compare_kernels.csv    the same per device kernel, memcpy and memset
//   compare_steps.csv      per paired scope: each step pair, then the mean over each side's
//                          steps: step time, computing, communication, free, preparing (µs)
// Rows in RunComparison's order: the largest regression first.
#pragma once

#include <string>

#include "analysis/compare/run_comparison.h"
#include "export/csv/summary_writer.h"

namespace aiprof::exporter {

// `target.dir` exists; `target.timestamp` empty gives the names above.
void WriteCompareFiles(const analysis::RunComparison& comparison, const SummaryTarget& target);

}  // namespace aiprof::exporter
