// Turns one stack sample or thread switch into its kCpuSample / kCpuSwitch record and hands
// it to the runtime (plugin.h). Called on the writer thread only (perf rings, timer queue).
#pragma once

#include <cstdint>
#include <cstring>

#include "aiprof/plugin.h"
#include "format/records_cpu.h"

namespace aiprof::cpu_sampling {

inline void EmitSample(uint64_t ts_ns, uint16_t flags, uint32_t pid, uint32_t tid, uint32_t cpu,
                       const uint64_t* ips, uint32_t frames) {
  if (frames > format::kCpuMaxFrames) {
    frames = format::kCpuMaxFrames;
    flags |= format::kCpuSampleTruncated;
  }
  struct {
    format::RecordHeader header;
    format::CpuSampleHeader sample;
    uint64_t ips[format::kCpuMaxFrames];
  } record;
  uint32_t frame_words = (frames + 1) / 2;
  record.header = {ts_ns, static_cast<uint8_t>(format::CpuRecordKind::kCpuSample),
                   static_cast<uint8_t>(1 + frame_words),
                   static_cast<uint16_t>(flags | format::kCpuTimeMonotonicRaw), 0};
  record.sample = {pid, tid, cpu, frames};
  std::memcpy(record.ips, ips, frames * sizeof(uint64_t));
  if (frames % 2 != 0) record.ips[frames] = 0;
  aiprof_emit(&record, 2 + frame_words);
}

inline void EmitSwitch(uint64_t ts_ns, uint16_t flags, uint32_t pid, uint32_t tid, uint32_t cpu) {
  struct {
    format::RecordHeader header;
    format::CpuSampleHeader sample;
  } record;
  record.header = {ts_ns, static_cast<uint8_t>(format::CpuRecordKind::kCpuSwitch), 1,
                   static_cast<uint16_t>(flags | format::kCpuTimeMonotonicRaw), 0};
  record.sample = {pid, tid, cpu, 0};
  aiprof_emit(&record, 2);
}

// Cumulative count of samples lost (ring full, queue full) as a core kDrops record (stamped
// in the process clock, as every core record).
inline void EmitSampleDrops(uint32_t tid, uint64_t cumulative) {
  struct {
    format::RecordHeader header;
    format::DropCount drops;
  } record;
  record.header = {aiprof_now(), static_cast<uint8_t>(format::RecordKind::kDrops), 1, 0,
                   static_cast<uint8_t>(format::CpuRecordKind::kCpuSample)};
  record.drops = {cumulative, tid, 0};
  aiprof_emit(&record, 2);
}

}  // namespace aiprof::cpu_sampling
