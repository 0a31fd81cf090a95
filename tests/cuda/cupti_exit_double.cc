// A libcupti stand-in (loaded by the CUDA plugin through AIPROF_CUPTI_PATH) that models what
// an H200 with driver 580 showed: CUDA's own exit handlers tear CUPTI down, and a CUPTI call
// after that crashes the exiting job (there, SIGSEGV in cuptiActivityDisable). Here a call
// after cupti_exit_double_tear_down() aborts with a message naming it. Records nothing: the
// activity API answers as for a process without kernels.
#include <cupti.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>

namespace {

bool g_torn_down = false;
int g_enabled = 0;  // activity kinds enabled and not disabled since

void Check(const char* call) {
  if (!g_torn_down) return;
  std::fprintf(stderr, "cupti_exit_double: %s called after CUDA's exit handlers\n", call);
  std::abort();
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void cupti_exit_double_tear_down() {
  g_torn_down = true;
  // What the job's exit had left enabled in CUPTI when CUDA went away.
  std::fprintf(stderr, "cupti_exit_double: torn down with %d activity kind(s) enabled\n",
               g_enabled);
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind) {
  Check("cuptiActivityEnable");
  ++g_enabled;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityDisable(CUpti_ActivityKind) {
  Check("cuptiActivityDisable");
  if (g_enabled > 0) --g_enabled;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc,
                                           CUpti_BuffersCallbackCompleteFunc) {
  Check("cuptiActivityRegisterCallbacks");
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc) {
  Check("cuptiActivityRegisterTimestampCallback");
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityFlushAll(uint32_t) {
  Check("cuptiActivityFlushAll");
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityGetNextRecord(uint8_t*, size_t, CUpti_Activity**) {
  Check("cuptiActivityGetNextRecord");
  return CUPTI_ERROR_MAX_LIMIT_REACHED;
}
CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  Check("cuptiActivityGetNumDroppedRecords");
  *dropped = 0;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind, uint64_t) {
  Check("cuptiActivityPushExternalCorrelationId");
  return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind, uint64_t* id) {
  Check("cuptiActivityPopExternalCorrelationId");
  if (id != nullptr) *id = 0;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType) {
  Check("cuptiSetThreadIdType");
  return CUPTI_SUCCESS;
}
CUptiResult cuptiGetTimestamp(uint64_t* timestamp) {
  Check("cuptiGetTimestamp");
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC_RAW, &now);
  *timestamp = static_cast<uint64_t>(now.tv_sec) * 1000000000ull + now.tv_nsec;
  return CUPTI_SUCCESS;
}
CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain, uint32_t, const char** name) {
  Check("cuptiGetCallbackName");
  *name = "unknown";
  return CUPTI_SUCCESS;
}
CUptiResult cuptiGetResultString(CUptiResult, const char** text) {
  *text = "CUPTI_ERROR (cupti_exit_double)";
  return CUPTI_SUCCESS;
}

}  // extern "C"
