// The event whose samples carry the stack a thread blocked in, at every such switch
// (OffCpuStacks::kEverySwitch). Preferred: the sched:sched_switch tracepoint filtered to
// `prev_state != 0`, which fires only when the thread leaves the CPU not runnable: the
// switch-outs the timeline shows as Blocked, the only ones whose stack is used (a preempted
// thread's interval has none). Its id comes from tracefs, which is often not mounted or not
// readable; then the software context-switches event samples every switch-out, preemptions
// included (half the switches of a job whose threads share a CPU, each paying the kernel's
// call chain: measured on examples/train, docs/PERFORMANCE.md).
#pragma once

#include <cstdint>

namespace aiprof::cpu_sampling {

struct BlockingSwitchEvent {
  uint32_t type = 0;             // perf_event_attr.type
  uint64_t config = 0;           // perf_event_attr.config
  const char* filter = nullptr;  // PERF_EVENT_IOC_SET_FILTER text, nullptr: none
  const char* name = "";
};

// The filtered sched_switch tracepoint when its id can be read and the environment's
// AIPROF_CPU_SAMPLING_OFF_CPU_EVENT is not "context-switches" (which forces the software
// event, to compare the two); else context-switches.
BlockingSwitchEvent ChooseBlockingSwitchEvent();
BlockingSwitchEvent ContextSwitchesEvent();

}  // namespace aiprof::cpu_sampling
