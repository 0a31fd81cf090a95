// communication_statistic_{ts}.csv (msprof header, ascend-msprof-formats.md §1.4): per
// device and communication op type (model/communication.h), the count and the total,
// min, average and max duration; Ratio(%) is the type's share of that device's total
// communication time. Device_id is "host" for host-side operations (gloo, NCCL API
// ranges), the device id for NCCL kernels. Written only when the model holds
// communication operations.
#pragma once

#include "export/csv/summary_writer.h"
#include "model/model.h"

namespace aiprof::exporter {

void WriteCommunicationStatistic(const model::Model& model, const SummaryTarget& target);

}  // namespace aiprof::exporter
