#include "export/csv/communication_summaries.h"

#include <algorithm>
#include <map>
#include <string>

#include "analysis/analysis_set.h"
#include "model/communication.h"

namespace aiprof::exporter {
namespace {

struct TypeStatistics {
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t min_ns = INT64_MAX;
  int64_t max_ns = 0;
};

}  // namespace

void WriteCommunicationStatistic(const model::Model& m, const SummaryTarget& target) {
  const model::CommunicationOps classified =
      target.analyses ? model::CommunicationOps{} : model::ClassifyCommunication(m);
  const std::vector<model::CommOp>& ops =
      (target.analyses ? target.analyses->communication : classified).ops;
  if (ops.empty()) return;
  // device id (-1 host) -> op type -> statistics; host first, then devices in order.
  std::map<int32_t, std::map<model::CommOpType, TypeStatistics>> by_device;
  for (const model::CommOp& op : ops) {
    const int64_t duration = m.slices.dur(op.slice);
    TypeStatistics& st = by_device[op.device_id][op.type];
    ++st.count;
    st.total_ns += duration;
    st.min_ns = std::min(st.min_ns, duration);
    st.max_ns = std::max(st.max_ns, duration);
  }
  size_t rows = 0;
  for (const auto& [device, types] : by_device) rows += types.size();
  SummaryWriter w(target, "communication_statistic",
                  {"Device_id", "OP Type", "Count", "Total Time(us)", "Min Time(us)",
                   "Avg Time(us)", "Max Time(us)", "Ratio(%)"},
                  rows);
  for (const auto& [device, types] : by_device) {
    int64_t device_total = 0;
    std::vector<std::pair<model::CommOpType, TypeStatistics>> sorted(types.begin(), types.end());
    for (const auto& [type, st] : sorted) device_total += st.total_ns;
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
      return a.second.total_ns > b.second.total_ns;
    });
    const std::string device_column = device >= 0 ? std::to_string(device) : "host";
    for (const auto& [type, st] : sorted) {
      const auto count = static_cast<int64_t>(st.count);
      w.PlainText(device_column).PlainText(model::CommOpTypeName(type)).Unsigned(st.count);
      w.Micros(st.total_ns).Micros(st.min_ns).Micros((st.total_ns + count / 2) / count);
      w.Micros(st.max_ns);
      w.Real(device_total > 0
                 ? 100.0 * static_cast<double>(st.total_ns) / static_cast<double>(device_total)
                 : 0.0);
      w.EndRow();
    }
  }
}

}  // namespace aiprof::exporter
