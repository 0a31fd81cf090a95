// The floor of operator capture cost for bench/torch_overhead.py: a global RecordFunction
// callback pair that does nothing, registered as aiprof's is (without needsIds: the torch
// plugin numbers operators itself). Whatever a profiler adds beyond this is its own cost.
#include <ATen/record_function.h>

namespace {

std::unique_ptr<at::ObserverContext> OnEnter(const at::RecordFunction&) {
  return nullptr;
}
void OnExit(const at::RecordFunction&, at::ObserverContext*) {}
at::CallbackHandle g_handle = 0;

}  // namespace

extern "C" __attribute__((visibility("default"))) void aiprof_bench_floor_enable(int needs_inputs) {
  if (g_handle != 0) return;
  g_handle = at::addGlobalCallback(
      at::RecordFunctionCallback(OnEnter, OnExit).needsInputs(needs_inputs != 0));
}

extern "C" __attribute__((visibility("default"))) void aiprof_bench_floor_disable() {
  if (g_handle == 0) return;
  at::removeCallback(g_handle);
  g_handle = 0;
}
