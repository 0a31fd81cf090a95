#include "sources/cuda/cupti_api.h"

#include <dlfcn.h>

#include <cstdlib>

#include "sources/cuda/symbol_resolver.h"

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

bool LoadCuptiApi(CuptiApi* api, std::string* error) {
  std::string tried;
  void* handle = OpenCuptiLibrary(&tried);
  if (handle == nullptr) {
    *error = "cannot load libcupti (tried " + tried +
             "); set AIPROF_CUPTI_PATH to libcupti.so of the CUDA toolkit in use";
    return false;
  }
  const SymbolResolver resolve(handle, "libcupti", "CUPTI older than CUDA 11.6?", error);
  CuptiApi loaded{};
  bool ok =
      resolve("cuptiActivityEnable", &loaded.activity_enable) &&
      resolve("cuptiActivityDisable", &loaded.activity_disable) &&
      resolve("cuptiActivityRegisterCallbacks", &loaded.activity_register_callbacks) &&
      resolve("cuptiActivityRegisterTimestampCallback",
              &loaded.activity_register_timestamp_callback) &&
      resolve("cuptiActivityFlushAll", &loaded.activity_flush_all) &&
      resolve("cuptiActivityGetNextRecord", &loaded.activity_get_next_record) &&
      resolve("cuptiActivityGetNumDroppedRecords", &loaded.activity_get_num_dropped_records) &&
      resolve("cuptiActivityPushExternalCorrelationId",
              &loaded.activity_push_external_correlation_id) &&
      resolve("cuptiActivityPopExternalCorrelationId",
              &loaded.activity_pop_external_correlation_id) &&
      resolve("cuptiSetThreadIdType", &loaded.set_thread_id_type) &&
      resolve("cuptiGetTimestamp", &loaded.get_timestamp) &&
      resolve("cuptiGetCallbackName", &loaded.get_callback_name) &&
      resolve("cuptiGetResultString", &loaded.get_result_string);
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
