// The msprof-style summary files (names and headers: ascend-msprof-formats.md §1.4). Each
// writer writes its file only when the model holds data for it.
#pragma once

#include "export/csv/communication_summaries.h"
#include "export/csv/framework_summaries.h"
#include "export/csv/host_summaries.h"
#include "export/csv/summary_writer.h"
#include "model/model.h"

namespace aiprof::exporter {

void WriteOpSummaries(const model::Model& model,
                      const SummaryTarget& target);  // op_summary, op_statistic
void WriteApiStatistic(const model::Model& model, const SummaryTarget& target);
void WriteStepTraceSummary(const model::Model& model, const SummaryTarget& target);
void WriteMsprofTx(const model::Model& model, const SummaryTarget& target);
void WriteCounterSummaries(const model::Model& model, const SummaryTarget& target);

inline void WriteAllSummaries(const model::Model& model, const SummaryTarget& target) {
  WriteOpSummaries(model, target);
  WriteApiStatistic(model, target);
  WriteStepTraceSummary(model, target);
  WriteMsprofTx(model, target);
  WriteCounterSummaries(model, target);
  WriteHostSummaries(model, target);
  WriteFrameworkSummaries(model, target);
  WriteCommunicationStatistic(model, target);
}

}  // namespace aiprof::exporter
