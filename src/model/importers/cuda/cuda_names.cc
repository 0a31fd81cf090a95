#include "model/importers/cuda/cuda_names.h"

#include <cxxabi.h>

#include <cstdlib>
#include <iterator>

#include "format/records_cuda.h"

namespace aiprof::model::cuda_names {

std::string Demangle(std::string_view mangled) {
  std::string text(mangled);
  int status = 0;
  char* demangled = abi::__cxa_demangle(text.c_str(), nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return text;
  std::string out(demangled);
  std::free(demangled);
  return out;
}

std::string ApiName(std::string_view name) {
  const size_t suffix = name.rfind("_v");
  if (suffix != std::string_view::npos && name.size() - suffix >= 6) {
    bool digits = true;
    for (size_t i = suffix + 2; i < name.size(); ++i) digits &= name[i] >= '0' && name[i] <= '9';
    if (digits) return std::string(name.substr(0, suffix));
  }
  return std::string(name);
}

const char* CopyKindName(uint8_t kind) {
  static const char* const kNames[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                       "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
  return kind < std::size(kNames) ? kNames[kind] : "Unknown";
}

const char* MemoryKindName(uint8_t kind) {
  static const char* const kNames[] = {"Unknown", "Pageable", "Pinned",        "Device",
                                       "Array",   "Managed",  "Device Static", "Managed Static"};
  return kind < std::size(kNames) ? kNames[kind] : "Unknown";
}

const char* SyncName(uint32_t type) {
  switch (type) {
    case 1:
      return "Event Sync";
    case 2:
      return "Stream Wait Event";
    case 3:
      return "Stream Sync";
    case 4:
      return "Context Sync";
    default:
      return "Synchronization";
  }
}

const char* LimitName(uint8_t limit) {
  switch (limit) {
    case format::kOccupancyLimitWarps:
      return "WARPS";
    case format::kOccupancyLimitRegisters:
      return "REGS";
    case format::kOccupancyLimitSharedMemory:
      return "SMEM";
    case format::kOccupancyLimitBlocks:
      return "BLOCKS";
    default:
      return "UNKNOWN";
  }
}

}  // namespace aiprof::model::cuda_names
