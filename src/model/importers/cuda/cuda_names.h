// The names the CUDA importer gives CUPTI's values, as Kineto spells them: demangled kernel
// names, API names without CUPTI's version suffix, copy and memory kinds, synchronisation
// types and occupancy limits. Pure functions (cuda_names_test.cc).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace aiprof::model::cuda_names {

// The demangled name, or the text itself when it is not a mangled name.
std::string Demangle(std::string_view mangled);
// "cudaLaunchKernel_v7000" → "cudaLaunchKernel" (CUPTI's version suffix; Kineto drops it).
// Short suffixes that are part of the driver API name ("cuMemAlloc_v2") stay.
std::string ApiName(std::string_view name);
// CUpti_ActivityMemcpyKind: "HtoD", "DtoH", ...; "Unknown" otherwise.
const char* CopyKindName(uint8_t kind);
// CUpti_ActivityMemoryKind: "Pageable", "Pinned", "Device", ...; "Unknown" otherwise.
const char* MemoryKindName(uint8_t kind);
// CUpti_ActivitySynchronizationType: "Event Sync", "Stream Wait Event", ...
const char* SyncName(uint32_t type);
// The occupancy limiter (format::kOccupancyLimit...): "WARPS", "REGS", "SMEM", "BLOCKS".
const char* LimitName(uint8_t limit);

}  // namespace aiprof::model::cuda_names
