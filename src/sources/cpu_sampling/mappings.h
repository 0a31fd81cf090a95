// Executable mappings of the sampled process, recorded at collection so that offline
// symbolisation resolves addresses against the right file and detects a binary that changed
// since (build-id). Runs on the writer thread only.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

namespace aiprof::cpu_sampling {

// Reads the GNU build-id note of an ELF file; returns its size (0: none or not ELF).
size_t ReadBuildId(const std::string& path, uint8_t* out, size_t capacity);

class MappingRecorder {
 public:
  // Emits a kCpuMapping record for every executable file mapping of /proc/self/maps.
  void EmitCurrentMappings(uint64_t now_ns);
  // Emits one mapping (from a PERF_RECORD_MMAP2 or the maps file).
  void Emit(uint64_t ts_ns, uint32_t pid, uint64_t start, uint64_t end, uint64_t file_offset,
            const std::string& path);

 private:
  struct BuildId {
    uint8_t bytes[32];
    uint8_t size;
  };
  std::unordered_map<std::string, BuildId> build_ids_;  // per path, read once
};

}  // namespace aiprof::cpu_sampling
