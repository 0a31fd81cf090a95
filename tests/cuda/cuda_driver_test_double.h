// CUDA DRIVER TEST DOUBLE. No GPU here, so the few driver functions the CUDA source calls
// itself (DriverApi: contexts, streams, events) are played by this stand-in. Contexts and
// streams are opaque handles it makes up; cuEventRecord is reported the way the driver and
// CUPTI do: a DRIVER API record (with the external ids pushed on the calling thread, through
// the CUPTI test double) and a CUDA_EVENT record whose device timestamp is when the test
// says the GPU reaches that point of the stream (device timestamps enabled only).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <map>
#include <mutex>

#include "cuda/cupti_test_double.h"
#include "sources/cuda/driver_api.h"

namespace aiprof::cuda::testing {

class CudaDriverTestDouble {
 public:
  explicit CudaDriverTestDouble(CuptiTestDouble* cupti);
  ~CudaDriverTestDouble();
  CudaDriverTestDouble(const CudaDriverTestDouble&) = delete;
  CudaDriverTestDouble& operator=(const CudaDriverTestDouble&) = delete;

  DriverApi api() const;

  // A device with its primary context (active: the application already uses it).
  CUcontext AddDevice(int ordinal, bool primary_active);
  CUstream AddStream(CUcontext context, uint32_t stream_id);
  // CUPTI-clock time the GPU reaches the next event recorded on `stream`.
  void SetDeviceTime(CUstream stream, uint64_t cupti_ns);

  uint32_t app_tid() const { return app_tid_; }
  void set_app_tid(uint32_t tid) { app_tid_ = tid; }
  int events_created() const { return events_created_; }
  int events_destroyed() const { return events_destroyed_; }
  int events_recorded() const { return events_recorded_; }
  uint32_t last_correlation() const { return next_correlation_ - 1; }

 private:
  struct Context {
    int device;
    uint32_t id;
  };
  struct Stream {
    CUcontext context;
    uint32_t id;
    uint64_t device_time;
  };
  static CudaDriverTestDouble* instance();
  static CUresult StreamGetCtx(CUstream stream, CUcontext* context);
  static CUresult EventCreate(CUevent* event, unsigned int flags);
  static CUresult EventRecord(CUevent event, CUstream stream);
  static CUresult EventDestroy(CUevent event);
  static CUresult CtxPushCurrent(CUcontext context);
  static CUresult CtxPopCurrent(CUcontext* context);
  static CUresult CtxGetDevice(CUdevice* device);
  static CUresult DeviceGetCount(int* count);
  static CUresult DeviceGet(CUdevice* device, int ordinal);
  static CUresult PrimaryCtxGetState(CUdevice device, unsigned int* flags, int* active);
  static CUresult PrimaryCtxRetain(CUcontext* context, CUdevice device);
  static CUresult PrimaryCtxRelease(CUdevice device);

  CuptiTestDouble* cupti_;
  mutable std::mutex mutex_;
  std::map<CUcontext, Context> contexts_;
  std::map<int, std::pair<CUcontext, bool>> devices_;  // ordinal → primary context, active
  std::map<CUstream, Stream> streams_;
  std::map<CUevent, CUcontext> events_;
  uint32_t app_tid_ = 0;
  uint32_t next_correlation_ = 900000;
  uintptr_t next_handle_ = 0x10000;
  int events_created_ = 0, events_destroyed_ = 0, events_recorded_ = 0;
};

}  // namespace aiprof::cuda::testing
