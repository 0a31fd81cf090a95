#include "cuda/recording_host.h"

#include <time.h>

namespace aiprof::cuda::testing {
namespace {
RecordingHost* g_host = nullptr;
}

RecordingHost::RecordingHost(double ticks_per_ns) : ticks_per_ns_(ticks_per_ns) {
  g_host = this;
}

RecordingHost::~RecordingHost() {
  if (g_host == this) g_host = nullptr;
}

PluginHost RecordingHost::host() const {
  return PluginHost{StaticNow, StaticIntern, StaticEmit, StaticEmitForThread};
}

uint64_t RecordingHost::Now() const {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC_RAW, &now);
  const double ns = static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
  return static_cast<uint64_t>(ns * ticks_per_ns_);
}

std::vector<EmittedRecord> RecordingHost::records() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return records_;
}

std::vector<EmittedRecord> RecordingHost::OfKind(uint8_t kind) const {
  std::vector<EmittedRecord> out;
  for (const EmittedRecord& record : records()) {
    if (record.header.kind == kind) out.push_back(record);
  }
  return out;
}

std::string RecordingHost::String(uint32_t id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return id < strings_.size() ? strings_[id] : "<bad string id>";
}

uint64_t RecordingHost::StaticNow() {
  return g_host->Now();
}

uint32_t RecordingHost::StaticIntern(const char* text, size_t length) {
  std::lock_guard<std::mutex> lock(g_host->mutex_);
  std::string key(text, length);
  auto [it, inserted] = g_host->ids_.emplace(key, static_cast<uint32_t>(g_host->strings_.size()));
  if (inserted) g_host->strings_.push_back(key);
  return it->second;
}

int RecordingHost::StaticEmit(const void* record, uint32_t words) {
  return g_host->Store(0, record, words);
}

int RecordingHost::StaticEmitForThread(uint32_t tid, const void* record, uint32_t words) {
  return g_host->Store(tid, record, words);
}

int RecordingHost::Store(uint32_t tid, const void* record, uint32_t words) {
  if (refuse_) return 0;
  EmittedRecord out;
  out.tid = tid;
  std::memcpy(&out.header, record, sizeof(out.header));
  out.ext.resize(words - 1);
  std::memcpy(out.ext.data(), static_cast<const uint8_t*>(record) + sizeof(out.header),
              (words - 1) * sizeof(format::ExtWord));
  std::lock_guard<std::mutex> lock(mutex_);
  records_.push_back(std::move(out));
  return 1;
}

}  // namespace aiprof::cuda::testing
