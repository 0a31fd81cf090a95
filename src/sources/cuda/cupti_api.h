// Every CUPTI function the CUDA source calls, reached through this one table. The plugin
// fills it from a dlopen'ed libcupti (LoadCuptiApi); tests fill it from the CUPTI test
// double (tests/cuda/cupti_test_double.h). Nothing in the source calls CUPTI directly, so
// the plugin never links libcupti and the same code runs against either.
#pragma once

#include <cupti.h>

#include <string>

namespace aiprof::cuda {

struct CuptiApi {
  CUptiResult (*activity_enable)(CUpti_ActivityKind kind);
  CUptiResult (*activity_disable)(CUpti_ActivityKind kind);
  CUptiResult (*activity_register_callbacks)(CUpti_BuffersCallbackRequestFunc requested,
                                             CUpti_BuffersCallbackCompleteFunc completed);
  CUptiResult (*activity_register_timestamp_callback)(CUpti_TimestampCallbackFunc callback);
  CUptiResult (*activity_flush_all)(uint32_t flag);
  CUptiResult (*activity_get_next_record)(uint8_t* buffer, size_t valid_size,
                                          CUpti_Activity** record);
  CUptiResult (*activity_get_num_dropped_records)(CUcontext context, uint32_t stream_id,
                                                  size_t* dropped);
  CUptiResult (*activity_push_external_correlation_id)(CUpti_ExternalCorrelationKind kind,
                                                       uint64_t id);
  CUptiResult (*activity_pop_external_correlation_id)(CUpti_ExternalCorrelationKind kind,
                                                      uint64_t* last_id);
  CUptiResult (*set_thread_id_type)(CUpti_ActivityThreadIdType type);
  CUptiResult (*get_timestamp)(uint64_t* timestamp);
  CUptiResult (*get_callback_name)(CUpti_CallbackDomain domain, uint32_t cbid, const char** name);
  CUptiResult (*get_result_string)(CUptiResult result, const char** text);
  // Optional (nullptr when this libcupti lacks it): device timestamps in CUDA_EVENT records,
  // which place mstx ranges given a stream on the device timeline.
  CUptiResult (*activity_enable_cuda_event_device_timestamps)(uint8_t enable);
};

// dlopen()s libcupti (AIPROF_CUPTI_PATH, then libcupti.so.13, libcupti.so, then the
// CUDA toolkit's lib directories) and resolves every entry. On failure returns false and
// says which library or symbol was missing in `error`. The library stays loaded.
bool LoadCuptiApi(CuptiApi* api, std::string* error);

// dlopen()s libcupti as LoadCuptiApi does (a second open returns the same handle); nullptr
// with the candidates tried in `tried`.
void* OpenCuptiLibrary(std::string* tried);

// "CUPTI_ERROR_...: message" for logs.
std::string DescribeCuptiResult(const CuptiApi& api, CUptiResult result);

}  // namespace aiprof::cuda
