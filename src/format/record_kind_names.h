// The name of any record kind of the catalog (core, CPU sampling, torch, CUDA), for tools
// that print raw records (aiprof-dump) and messages that name a kind.
#pragma once

#include <cstdint>

#include "format/records.h"
#include "format/records_cpu.h"
#include "format/records_cuda.h"
#include "format/records_torch.h"

namespace aiprof::format {

// nullptr for a value no catalog defines.
inline const char* RecordKindName(uint8_t kind) {
  if (const char* name = CoreKindName(kind)) return name;
  if (const char* name = CpuKindName(kind)) return name;
  if (const char* name = TorchKindName(kind)) return name;
  return CudaKindName(kind);
}

}  // namespace aiprof::format
