// Which cudaEventRecord call a CUDA event wait waits for, from CUPTI's records: the CUDA_EVENT
// record of every cudaEventRecord call (its stream, its call's correlation id) and a wait's
// SYNCHRONIZATION record (cudaStreamWaitEvent, cudaEventSynchronize: the event's id). The
// CUDA importer writes the answer into the wait's slice as Kineto does for its cuda_sync
// events ("wait_on_stream", "wait_on_cuda_event_record_corr_id"), so the critical path's
// event-wait edges (analysis/critical_path/run_index.h) read aiprof's runs and Kineto's
// traces alike.
#pragma once

#include <cstdint>
#include <vector>

namespace aiprof::model {

struct CudaEventRecordCall {
  uint32_t context = 0;
  uint32_t event_id = 0;     // CUPTI's id of the event (the same for every record of it)
  uint32_t correlation = 0;  // of the cudaEventRecord call
  uint32_t stream = 0;       // the event was recorded on
  uint64_t sync_id = 0;      // CUPTI's cudaEventSyncId (CUDA 12.8+); 0: none
};

class CudaEventRecordCalls {
 public:
  void Add(const CudaEventRecordCall& call);

  // The record a wait on (context, event_id) waits for: the one CUPTI gave the same sync id
  // when it gave one, else the event's last record made before the wait call (correlation
  // ids grow with every API call of the process); null when none was recorded.
  const CudaEventRecordCall* WaitedFor(uint32_t context, uint32_t event_id, uint64_t sync_id,
                                       uint32_t wait_correlation);

 private:
  void Sort();

  std::vector<CudaEventRecordCall> by_event_;  // by (context, event id, correlation)
  std::vector<CudaEventRecordCall> by_sync_;   // those with a sync id, by it
  bool sorted_ = true;
};

}  // namespace aiprof::model
