#include "sources/cuda/cupti_api.h"

#include <dlfcn.h>

#include <cstdlib>

namespace aiprof::cuda {

// AIPROF_CUPTI_PATH, when set, is the only candidate: the user chose that library.
void* OpenCuptiLibrary(std::string* tried) {
  const char* override_path = std::getenv("AIPROF_CUPTI_PATH");
  if (override_path != nullptr && *override_path != '\0') {
    *tried = override_path;
    return dlopen(override_path, RTLD_NOW | RTLD_LOCAL);
  }
  const char* candidates[] = {
      "libcupti.so.13",
      "libcupti.so",
      "/usr/local/cuda/lib/libcupti.so",
      "/usr/local/cuda/lib64/libcupti.so",
      "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
  };
  for (const char* candidate : candidates) {
    if (candidate == nullptr || *candidate == '\0') continue;
    if (void* handle = dlopen(candidate, RTLD_NOW | RTLD_LOCAL)) return handle;
    if (!tried->empty()) *tried += ", ";
    *tried += candidate;
  }
  return nullptr;
}

namespace {

template <typename Function>
bool Resolve(void* handle, const char* symbol, Function* out, std::string* error) {
  void* address = dlsym(handle, symbol);
  if (address == nullptr) {
    *error = std::string("libcupti has no ") + symbol + " (CUPTI older than CUDA 11.6?)";
    return false;
  }
  *out = reinterpret_cast<Function>(address);
  return true;
}

}  // namespace

bool LoadCuptiApi(CuptiApi* api, std::string* error) {
  std::string tried;
  void* handle = OpenCuptiLibrary(&tried);
  if (handle == nullptr) {
    *error = "cannot load libcupti (tried " + tried +
             "); set AIPROF_CUPTI_PATH to libcupti.so of the CUDA toolkit in use";
    return false;
  }
  CuptiApi loaded{};
  bool ok =
      Resolve(handle, "cuptiActivityEnable", &loaded.activity_enable, error) &&
      Resolve(handle, "cuptiActivityDisable", &loaded.activity_disable, error) &&
      Resolve(handle, "cuptiActivityRegisterCallbacks", &loaded.activity_register_callbacks,
              error) &&
      Resolve(handle, "cuptiActivityRegisterTimestampCallback",
              &loaded.activity_register_timestamp_callback, error) &&
      Resolve(handle, "cuptiActivityFlushAll", &loaded.activity_flush_all, error) &&
      Resolve(handle, "cuptiActivityGetNextRecord", &loaded.activity_get_next_record, error) &&
      Resolve(handle, "cuptiActivityGetNumDroppedRecords", &loaded.activity_get_num_dropped_records,
              error) &&
      Resolve(handle, "cuptiActivityPushExternalCorrelationId",
              &loaded.activity_push_external_correlation_id, error) &&
      Resolve(handle, "cuptiActivityPopExternalCorrelationId",
              &loaded.activity_pop_external_correlation_id, error) &&
      Resolve(handle, "cuptiSetThreadIdType", &loaded.set_thread_id_type, error) &&
      Resolve(handle, "cuptiGetTimestamp", &loaded.get_timestamp, error) &&
      Resolve(handle, "cuptiGetCallbackName", &loaded.get_callback_name, error) &&
      Resolve(handle, "cuptiGetResultString", &loaded.get_result_string, error);
  if (!ok) return false;
  loaded.activity_enable_cuda_event_device_timestamps = reinterpret_cast<CUptiResult (*)(uint8_t)>(
      dlsym(handle, "cuptiActivityEnableCudaEventDeviceTimestamps"));
  *api = loaded;
  return true;
}

std::string DescribeCuptiResult(const CuptiApi& api, CUptiResult result) {
  const char* text = nullptr;
  if (api.get_result_string != nullptr && api.get_result_string(result, &text) == CUPTI_SUCCESS &&
      text != nullptr) {
    return text;
  }
  return "CUPTI error " + std::to_string(static_cast<int>(result));
}

}  // namespace aiprof::cuda
