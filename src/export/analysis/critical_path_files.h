// The critical path's files in aiprof_output/analysis/ (docs/analysis.md "Critical path"):
//   critical_path_steps.csv     per (job) step: time, the critical rank and thread, the path's
//                               time per category and the projected time of each standard
//                               what-if (µs)
//   critical_path_ranks.csv     per step and rank: the rank's own path per category, and how
//                               much of the job's path ran on it
//   critical_path_segments.csv  the job's path, piece by piece: when, how long, category,
//                               whose time (operator, kernel, wait) on which thread and rank
//   critical_path_slack.csv     per step, the near-critical work: the outermost slices the
//                               path does not run through with the least slack (how long
//                               each could end later without delaying the step)
//   critical_path_what_if.csv   per projection: the run's step time, projected, saving
#pragma once

#include <string>
#include <string_view>

#include "analysis/analysis_set.h"
#include "analysis/critical_path/critical_path_columns.h"
#include "export/csv/summary_writer.h"
#include "model/model.h"

namespace aiprof::exporter {

void WriteCriticalPathFiles(const model::Model& model, const analysis::AnalysisSet& set,
                            const SummaryTarget& target);

// "python3 4242/4242", "GPU 0 stream 7" ("all ranks" for model::kNoRow): a thread or stream
// as every writer of the critical path (files, tables, report, UI) names it.
std::string CriticalPathThreadLabel(const model::Model& model, uint32_t thread);

// The name of the slice whose self time a piece of the path is; empty for model::kNoRow.
std::string_view CriticalPathSliceName(const model::Model& model, uint32_t slice);

// A step's near-critical slice with what the model says of it (analysis::NearCriticalRow);
// `thread_label` (CriticalPathThreadLabel of the slice's thread) must outlive the row.
analysis::NearCriticalRow NearCriticalRowOf(const model::Model& model,
                                            const analysis::NearCriticalSlice& near,
                                            const analysis::CriticalPathStep& step,
                                            std::string_view thread_label);

}  // namespace aiprof::exporter
