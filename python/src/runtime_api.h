// The runtime (libaiprof.so) as the Python extension sees it: loaded with dlopen at run
// time, RTLD_GLOBAL so plugins loaded after it (libaiprof_torch.so) resolve plugin.h
// against the same instance. A program started by the `aiprof` launcher already has the
// runtime preloaded; dlopen then returns that instance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "aiprof/aiprof.h"
#include "aiprof/mstx.h"
#include "aiprof/plugin.h"

namespace aiprof::python {

struct RuntimeApi {
  decltype(&::aiprofInit) init = nullptr;
  decltype(&::aiprofCreateConfig) create_config = nullptr;
  decltype(&::aiprofConfigSetOption) config_set_option = nullptr;
  decltype(&::aiprofDestroyConfig) destroy_config = nullptr;
  decltype(&::aiprofStart) start = nullptr;
  decltype(&::aiprofStop) stop = nullptr;
  decltype(&::aiprofFinalize) finalize = nullptr;
  decltype(&::aiprofStepBegin) step_begin = nullptr;
  decltype(&::aiprofStepEnd) step_end = nullptr;
  decltype(&::aiprofIsCollecting) is_collecting = nullptr;
  decltype(&::aiprofCurrentDir) current_dir = nullptr;
  decltype(&::aiprofLastError) last_error = nullptr;
  decltype(&::aiprof_now) now = nullptr;
  decltype(&::aiprof_intern) intern = nullptr;
  decltype(&::aiprof_emit) emit = nullptr;
  decltype(&::aiprof_next_id) next_id = nullptr;
  decltype(&::aiprof_add_metadata) add_metadata = nullptr;
  volatile int* collecting = nullptr;
  // mstx (the runtime applies msproftx and the domain filters).
  decltype(&::mstxDomainCreateA) domain_create = nullptr;
  decltype(&::mstxDomainMarkA) domain_mark = nullptr;
  decltype(&::mstxDomainRangeStartA) domain_range_start = nullptr;
  decltype(&::mstxDomainRangeEnd) domain_range_end = nullptr;
  decltype(&::mstxMarkA) mark = nullptr;
  decltype(&::mstxRangeStartA) range_start = nullptr;
  decltype(&::mstxRangeEnd) range_end = nullptr;
};

// Loads the runtime from `path` (or finds the preloaded one when path is empty).
// Returns false and sets `error` when it cannot be loaded or lacks a symbol.
bool LoadRuntime(const std::string& path, std::string* error);
bool RuntimeLoaded();
const RuntimeApi& Runtime();  // only after LoadRuntime succeeded

// Loads a plugin shared object and calls its `attach_symbol` (e.g. aiprof_torch_attach).
bool LoadPlugin(const std::string& path, const std::string& attach_symbol, std::string* error);

// Record helpers for what the Python side emits (markers, modules, GC, call stacks).
inline bool Collecting() {
  return RuntimeLoaded() && *Runtime().collecting != 0;
}
uint32_t Intern(const std::string& text);

}  // namespace aiprof::python
