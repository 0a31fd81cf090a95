#include "sources/cpu_sampling/blocking_switch_event.h"

#include <linux/perf_event.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "sources/plugin_fd.h"

namespace aiprof::cpu_sampling {

namespace {

// tracefs where it is usually mounted, then its older place under debugfs.
constexpr const char* kSchedSwitchIdPaths[] = {
    "/sys/kernel/tracing/events/sched/sched_switch/id",
    "/sys/kernel/debug/tracing/events/sched/sched_switch/id"};

uint64_t ReadSchedSwitchId() {
  for (const char* path : kSchedSwitchIdPaths) {
    std::optional<std::string> text = sources::ReadPluginFile(path, 31);
    if (!text || text->empty()) continue;
    char* end = nullptr;
    unsigned long long id = std::strtoull(text->c_str(), &end, 10);
    if (end != text->c_str() && id > 0) return id;
  }
  return 0;
}

}  // namespace

BlockingSwitchEvent ContextSwitchesEvent() {
  return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, nullptr, "context-switches"};
}

BlockingSwitchEvent ChooseBlockingSwitchEvent() {
  const char* forced = std::getenv("AIPROF_CPU_SAMPLING_OFF_CPU_EVENT");
  if (forced != nullptr && std::strcmp(forced, "context-switches") == 0) {
    return ContextSwitchesEvent();
  }
  uint64_t id = ReadSchedSwitchId();
  if (id == 0) return ContextSwitchesEvent();
  // A thread that leaves the CPU runnable (preempted, yielding) has prev_state 0.
  return {PERF_TYPE_TRACEPOINT, id, "prev_state != 0", "sched_switch"};
}

}  // namespace aiprof::cpu_sampling
