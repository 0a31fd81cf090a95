// CRC-32C (Castagnoli), the checksum of chunk headers and payloads.
#pragma once

#include <cstddef>
#include <cstdint>

namespace aiprof::format {

// Continues a CRC from `crc` (0 for a fresh one). Uses SSE4.2 when the CPU has it.
uint32_t Crc32c(const void* data, size_t size, uint32_t crc = 0);

}  // namespace aiprof::format
