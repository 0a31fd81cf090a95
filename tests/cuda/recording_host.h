// A PluginHost that keeps what the CUDA source emits in memory, for tests that check the
// conversion itself. (The end-to-end test uses the real runtime, libaiprof.so, instead.)
// Its clock is CLOCK_MONOTONIC_RAW scaled by `ticks_per_ns`, so tests can play a TSC
// process clock whose unit is not the ns of CUPTI's clock.
#pragma once

#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/records.h"
#include "sources/cuda/plugin_host.h"

namespace aiprof::cuda::testing {

struct EmittedRecord {
  uint32_t tid = 0;  // 0: the emitting thread's own (aiprof_emit)
  format::RecordHeader header{};
  std::vector<format::ExtWord> ext;

  template <typename T>
  T As(uint32_t word) const {
    T value;
    std::memcpy(&value, &ext.at(word), sizeof(T));
    return value;
  }
};

class RecordingHost {
 public:
  explicit RecordingHost(double ticks_per_ns = 1.0);
  ~RecordingHost();

  PluginHost host() const;
  uint64_t Now() const;
  std::vector<EmittedRecord> records() const;
  std::vector<EmittedRecord> OfKind(uint8_t kind) const;
  std::string String(uint32_t id) const;
  // Makes emit return 0 (the runtime's buffers are full) from now on.
  void set_refuse(bool refuse) { refuse_ = refuse; }

 private:
  static uint64_t StaticNow();
  static uint32_t StaticIntern(const char* text, size_t length);
  static int StaticEmit(const void* record, uint32_t words);
  static int StaticEmitForThread(uint32_t tid, const void* record, uint32_t words);
  int Store(uint32_t tid, const void* record, uint32_t words);

  const double ticks_per_ns_;
  bool refuse_ = false;
  mutable std::mutex mutex_;
  std::vector<EmittedRecord> records_;
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> strings_{""};
};

}  // namespace aiprof::cuda::testing
