#include "model/importers/cuda/event_waits.h"

#include <algorithm>
#include <tuple>

namespace aiprof::model {
namespace {

auto EventKey(const CudaEventRecordCall& call) {
  return std::make_tuple(call.context, call.event_id, call.correlation);
}

}  // namespace

void CudaEventRecordCalls::Add(const CudaEventRecordCall& call) {
  by_event_.push_back(call);
  if (call.sync_id != 0) by_sync_.push_back(call);
  sorted_ = false;
}

void CudaEventRecordCalls::Sort() {
  std::sort(by_event_.begin(), by_event_.end(),
            [](const auto& a, const auto& b) { return EventKey(a) < EventKey(b); });
  std::sort(by_sync_.begin(), by_sync_.end(),
            [](const auto& a, const auto& b) { return a.sync_id < b.sync_id; });
  sorted_ = true;
}

const CudaEventRecordCall* CudaEventRecordCalls::WaitedFor(uint32_t context, uint32_t event_id,
                                                           uint64_t sync_id,
                                                           uint32_t wait_correlation) {
  if (!sorted_) Sort();
  if (sync_id != 0) {
    const auto found = std::lower_bound(
        by_sync_.begin(), by_sync_.end(), sync_id,
        [](const CudaEventRecordCall& call, uint64_t id) { return call.sync_id < id; });
    if (found != by_sync_.end() && found->sync_id == sync_id) return &*found;
  }
  // The first record of the event at or after the wait call; the one before it is the last
  // record made before the wait.
  const auto after = std::lower_bound(
      by_event_.begin(), by_event_.end(), std::make_tuple(context, event_id, wait_correlation),
      [](const CudaEventRecordCall& call, const auto& key) { return EventKey(call) < key; });
  if (after == by_event_.begin()) return nullptr;
  const CudaEventRecordCall& before = *std::prev(after);
  return before.context == context && before.event_id == event_id ? &before : nullptr;
}

}  // namespace aiprof::model
