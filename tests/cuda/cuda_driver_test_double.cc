#include "cuda/cuda_driver_test_double.h"

#include <vector>

namespace aiprof::cuda::testing {
namespace {

CudaDriverTestDouble* g_instance = nullptr;
thread_local std::vector<CUcontext> t_current;  // the calling thread's context stack

template <typename Handle>
Handle MakeHandle(uintptr_t* next) {
  *next += 0x100;
  return reinterpret_cast<Handle>(*next);
}

}  // namespace

CudaDriverTestDouble::CudaDriverTestDouble(CuptiTestDouble* cupti) : cupti_(cupti) {
  g_instance = this;
}

CudaDriverTestDouble::~CudaDriverTestDouble() {
  if (g_instance == this) g_instance = nullptr;
}

CudaDriverTestDouble* CudaDriverTestDouble::instance() {
  return g_instance;
}

DriverApi CudaDriverTestDouble::api() const {
  return DriverApi{StreamGetCtx,   EventCreate,        EventRecord,      EventDestroy,
                   CtxPushCurrent, CtxPopCurrent,      CtxGetDevice,     DeviceGetCount,
                   DeviceGet,      PrimaryCtxGetState, PrimaryCtxRetain, PrimaryCtxRelease};
}

CUcontext CudaDriverTestDouble::AddDevice(int ordinal, bool primary_active) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto context = MakeHandle<CUcontext>(&next_handle_);
  contexts_[context] = Context{ordinal, static_cast<uint32_t>(contexts_.size() + 1)};
  devices_[ordinal] = {context, primary_active};
  return context;
}

CUstream CudaDriverTestDouble::AddStream(CUcontext context, uint32_t stream_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto stream = MakeHandle<CUstream>(&next_handle_);
  streams_[stream] = Stream{context, stream_id, 0};
  return stream;
}

void CudaDriverTestDouble::SetDeviceTime(CUstream stream, uint64_t cupti_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  streams_.at(stream).device_time = cupti_ns;
}

CUresult CudaDriverTestDouble::StreamGetCtx(CUstream stream, CUcontext* context) {
  CudaDriverTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  if (stream == CU_STREAM_LEGACY) {
    if (t_current.empty()) return CUDA_ERROR_INVALID_CONTEXT;
    *context = t_current.back();
    return CUDA_SUCCESS;
  }
  auto found = self->streams_.find(stream);
  if (found == self->streams_.end()) return CUDA_ERROR_INVALID_HANDLE;
  *context = found->second.context;
  return CUDA_SUCCESS;
}

CUresult CudaDriverTestDouble::EventCreate(CUevent* event, unsigned int) {
  CudaDriverTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  if (t_current.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  *event = MakeHandle<CUevent>(&self->next_handle_);
  self->events_[*event] = t_current.back();
  ++self->events_created_;
  return CUDA_SUCCESS;
}

// cuEventRecord as the driver reports it through CUPTI: the API call (which carries the
// thread's external ids), then the CUDA_EVENT record of the event reaching the GPU.
CUresult CudaDriverTestDouble::EventRecord(CUevent event, CUstream stream) {
  CudaDriverTestDouble* self = instance();
  uint32_t correlation = 0, context_id = 0, stream_id = 0, device = 0, tid = 0;
  uint64_t device_time = 0;
  {
    std::lock_guard<std::mutex> lock(self->mutex_);
    auto owner = self->events_.find(event);
    if (owner == self->events_.end()) return CUDA_ERROR_INVALID_HANDLE;
    // The legacy default stream is CUPTI's stream 7 of the event's context.
    Stream legacy{owner->second, 7, 0};
    auto found = self->streams_.find(stream);
    if (found == self->streams_.end() && stream != CU_STREAM_LEGACY) {
      return CUDA_ERROR_INVALID_HANDLE;
    }
    const Stream& target = found == self->streams_.end() ? legacy : found->second;
    if (owner->second != target.context) return CUDA_ERROR_INVALID_CONTEXT;
    const Context& context = self->contexts_.at(owner->second);
    correlation = self->next_correlation_++;
    context_id = context.id;
    stream_id = target.id;
    device = static_cast<uint32_t>(context.device);
    device_time = target.device_time;
    tid = self->app_tid_;
    ++self->events_recorded_;
  }
  const uint64_t now = self->cupti_->cupti_now();
  CUpti_ActivityAPI call{};
  call.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  call.cbid = CUPTI_DRIVER_TRACE_CBID_cuEventRecord;
  call.start = now - 2000;
  call.end = now - 1000;
  call.processId = 0;
  call.threadId = tid;
  call.correlationId = correlation;
  self->cupti_->RecordApi(call);
  CUpti_ActivityCudaEvent2 record{};
  record.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
  record.correlationId = correlation;
  record.contextId = context_id;
  record.streamId = stream_id;
  record.eventId = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(event) >> 8);
  record.deviceId = device;
  if (self->cupti_->cuda_event_device_timestamps()) {
    record.deviceTimestamp = device_time != 0 ? device_time : now;
  }
  self->cupti_->Record(record);
  return CUDA_SUCCESS;
}

CUresult CudaDriverTestDouble::EventDestroy(CUevent event) {
  CudaDriverTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  if (self->events_.erase(event) == 0) return CUDA_ERROR_INVALID_HANDLE;
  ++self->events_destroyed_;
  return CUDA_SUCCESS;
}

CUresult CudaDriverTestDouble::CtxPushCurrent(CUcontext context) {
  CudaDriverTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  if (!self->contexts_.contains(context)) return CUDA_ERROR_INVALID_CONTEXT;
  t_current.push_back(context);
  return CUDA_SUCCESS;
}

CUresult CudaDriverTestDouble::CtxPopCurrent(CUcontext* context) {
  if (t_current.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  *context = t_current.back();
  t_current.pop_back();
  return CUDA_SUCCESS;
}

CUresult CudaDriverTestDouble::CtxGetDevice(CUdevice* device) {
  CudaDriverTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  if (t_current.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  *device = self->contexts_.at(t_current.back()).device;
  return CUDA_SUCCESS;
}

CUresult CudaDriverTestDouble::DeviceGetCount(int* count) {
  CudaDriverTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  *count = static_cast<int>(self->devices_.size());
  return CUDA_SUCCESS;
}

CUresult CudaDriverTestDouble::DeviceGet(CUdevice* device, int ordinal) {
  CudaDriverTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  if (!self->devices_.contains(ordinal)) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult CudaDriverTestDouble::PrimaryCtxGetState(CUdevice device, unsigned int* flags,
                                                  int* active) {
  CudaDriverTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  auto found = self->devices_.find(device);
  if (found == self->devices_.end()) return CUDA_ERROR_INVALID_DEVICE;
  *flags = 0;
  *active = found->second.second ? 1 : 0;
  return CUDA_SUCCESS;
}

CUresult CudaDriverTestDouble::PrimaryCtxRetain(CUcontext* context, CUdevice device) {
  CudaDriverTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  auto found = self->devices_.find(device);
  if (found == self->devices_.end()) return CUDA_ERROR_INVALID_DEVICE;
  *context = found->second.first;
  return CUDA_SUCCESS;
}

CUresult CudaDriverTestDouble::PrimaryCtxRelease(CUdevice device) {
  CudaDriverTestDouble* self = instance();
  std::lock_guard<std::mutex> lock(self->mutex_);
  return self->devices_.contains(device) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

}  // namespace aiprof::cuda::testing
