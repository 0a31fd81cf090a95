// Turns one stack sample or thread switch into its kCpuSample / kCpuSwitch record and hands
// it to the runtime (plugin.h). Called on the writer thread only (perf rings, timer queue).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

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

// A kCpuSample whose only frame is the sampled (user) IP, then its stack copy as
// kCpuStackCopy pieces. `dwarf_regs`: kCpuUserRegs registers in DWARF numbering. Pieces
// are not emitted when the sample itself was dropped; a dropped piece leaves the import
// with the leaf alone.
inline void EmitSampleWithStackCopy(uint64_t ts_ns, uint16_t flags, uint32_t pid, uint32_t tid,
                                    uint32_t cpu, uint64_t ip, const uint64_t* dwarf_regs,
                                    const uint8_t* stack, uint32_t stack_bytes) {
  struct {
    format::RecordHeader header;
    format::CpuSampleHeader sample;
    uint64_t ips[2];
  } sample_record;
  sample_record.header = {
      ts_ns, static_cast<uint8_t>(format::CpuRecordKind::kCpuSample), 2,
      static_cast<uint16_t>(flags | format::kCpuTimeMonotonicRaw | format::kCpuSampleStackCopy), 0};
  sample_record.sample = {pid, tid, cpu, 1};
  sample_record.ips[0] = ip;
  sample_record.ips[1] = 0;
  if (aiprof_emit(&sample_record, 3) == 0) return;
  struct {
    format::RecordHeader header;
    format::CpuStackCopyPiece piece;
    uint8_t payload[format::kCpuStackPieceBytes];
  } piece;
  uint32_t offset = 0;
  for (uint16_t index = 0; index == 0 || offset < stack_bytes; ++index) {
    uint32_t regs_bytes = index == 0 ? 8 * format::kCpuUserRegs : 0;
    uint32_t bytes = std::min(stack_bytes - offset, format::kCpuStackPieceBytes - regs_bytes);
    uint32_t payload = regs_bytes + bytes;
    uint32_t words = (payload + 15) / 16;
    if (regs_bytes > 0) std::memcpy(piece.payload, dwarf_regs, regs_bytes);
    std::memcpy(piece.payload + regs_bytes, stack + offset, bytes);
    std::memset(piece.payload + payload, 0, words * 16 - payload);
    piece.header = {ts_ns, static_cast<uint8_t>(format::CpuRecordKind::kCpuStackCopy),
                    static_cast<uint8_t>(1 + words), index, tid};
    piece.piece = {pid, stack_bytes, offset, bytes};
    if (aiprof_emit(&piece, 2 + words) == 0) return;
    offset += bytes;
  }
}

// The Python frames of the sample emitted next (same ts and tid): kCpuPythonFrames.
inline void EmitPythonFrames(uint64_t ts_ns, uint32_t tid, const uint64_t* code,
                             const uint64_t* info, uint32_t frames, bool truncated) {
  if (frames > format::kMaxExtWords) {
    frames = format::kMaxExtWords;
    truncated = true;
  }
  struct {
    format::RecordHeader header;
    format::ExtWord frames[format::kMaxExtWords];
  } record;
  record.header = {ts_ns, static_cast<uint8_t>(format::CpuRecordKind::kCpuPythonFrames),
                   static_cast<uint8_t>(frames),
                   static_cast<uint16_t>(truncated ? format::kCpuPythonTruncated : 0), tid};
  for (uint32_t i = 0; i < frames; ++i) record.frames[i] = {code[i], info[i]};
  aiprof_emit(&record, 1 + frames);
}

// The name of a code object (kCpuPythonCode), before the frames that use it.
inline void EmitPythonCode(uint32_t pid, uint64_t code, const std::string& name,
                           const std::string& file) {
  struct {
    format::RecordHeader header;
    format::ExtWord words[2];
  } record;
  record.header = {aiprof_now(), static_cast<uint8_t>(format::CpuRecordKind::kCpuPythonCode), 2, 0,
                   aiprof_intern(name.data(), name.size())};
  record.words[0] = {code, pid};
  record.words[1] = {aiprof_intern(file.data(), file.size()), 0};
  aiprof_emit(&record, 3);
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
  const format::DropRecord record = format::MakeDropRecord(
      aiprof_now(), static_cast<uint8_t>(format::CpuRecordKind::kCpuSample), cumulative, tid);
  aiprof_emit(&record, 2);
}

}  // namespace aiprof::cpu_sampling
