// msprof's host resource summaries (cpu_usage, process_cpu_usage, sys_mem, process_mem),
// built from the launcher sampler's counters (src/format/records_host.h). Each value is
// the mean over the collected samples, as msprof's summaries report.
#pragma once

#include "export/csv/summary_writer.h"
#include "model/model.h"

namespace aiprof::exporter {

void WriteHostSummaries(const model::Model& model, const SummaryTarget& target);

}  // namespace aiprof::exporter
