// CPU sampling tables of the model (records_cpu.h): stack samples, the stacks they point
// to, the executable mappings that resolve their addresses, and thread states from the
// kernel's switch records. Times are monotonic raw ns while a file is parsed (the kernel
// stamps them so, no tick conversion) and ns since the Unix epoch after the merge.
// Addresses stay raw here; src/analysis/cpu_profile symbolises them at export.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/string_pool.h"

namespace aiprof::model {

struct CpuSampleTable {
  std::vector<int64_t> ts;
  std::vector<uint32_t> thread;  // ThreadTable row
  std::vector<uint32_t> stack;   // CpuStackTable row
  std::vector<uint16_t> flags;   // format::CpuSampleFlags
  std::vector<uint32_t> cpu;     // UINT32_MAX: not known
  size_t size() const { return ts.size(); }
};

// Distinct stacks, per process (addresses mean something only in their process). Stack
// `row` is frames[begin[row] .. begin[row + 1]), leaf first.
struct CpuStackTable {
  std::vector<uint32_t> process;  // ProcessTable row
  // 1: sampled in the kernel; the frames are the user stack below the system call.
  std::vector<uint8_t> kernel_leaf;
  std::vector<uint32_t> begin{0};
  std::vector<uint64_t> frames;
  // CpuStackCopyTable row of a sample taken with call_graph "dwarf" (its frames are then the
  // sampled IP alone; the export unwinds the copy), UINT32_MAX otherwise. Such a sample
  // has a stack row of its own: copies are not deduplicated.
  std::vector<uint32_t> copy;
  // Python frames of the stack (timer mode in a CPython process), innermost first:
  // python_name[python_begin[row] .. python_begin[row + 1]) are "qualname (file.py:line)"
  // with their source file in python_file; python_entry 1 marks the frame a C call of the
  // interpreter loop (_PyEval_EvalFrameDefault) started with, where the export merges the
  // Python frames into the native stack. python_truncated 1: outer frames were not kept.
  std::vector<uint32_t> python_begin{0};
  std::vector<StringId> python_name;
  std::vector<StringId> python_file;
  std::vector<uint8_t> python_entry;
  std::vector<uint8_t> python_truncated;
  size_t size() const { return process.size(); }
};

// User stacks copied by the kernel (kCpuStackCopy): per copy, the registers (kCpuUserRegs,
// DWARF numbering) and the bytes from the stack pointer up, bytes[begin[row] ..
// begin[row + 1]).
struct CpuStackCopyTable {
  std::vector<uint64_t> regs;
  std::vector<uint64_t> begin{0};
  std::vector<uint8_t> bytes;
  size_t size() const { return begin.size() - 1; }
};

struct CpuMappingTable {
  std::vector<uint32_t> process;
  std::vector<uint64_t> start;
  std::vector<uint64_t> end;
  std::vector<uint64_t> file_offset;
  std::vector<StringId> path;
  std::vector<std::string> build_id;  // lowercase hex, empty when the file had none
  size_t size() const { return start.size(); }
};

enum class ThreadState : uint8_t {
  kRunning = 0,
  kBlocked = 1,    // switched out voluntarily (sleep, lock, I/O)
  kPreempted = 2,  // switched out while runnable
};

// Intervals between a thread's switch records: on CPU, or off CPU and why, with the stack
// it blocked in (the switch-out sample) when there is one.
struct ThreadStateTable {
  std::vector<uint32_t> thread;
  std::vector<int64_t> ts;
  std::vector<int64_t> end;
  std::vector<ThreadState> state;
  std::vector<uint32_t> stack;  // CpuStackTable row or UINT32_MAX
  size_t size() const { return ts.size(); }
};

// Which sampling mode ran in each process and why (kCpuSamplingInfo).
struct CpuSamplingRunTable {
  std::vector<uint32_t> process;
  std::vector<uint16_t> mode;  // format::CpuSamplingMode
  std::vector<StringId> reason;
  std::vector<uint32_t> freq_hz;
  size_t size() const { return process.size(); }
};

struct CpuProfileTables {
  CpuSampleTable samples;
  CpuStackTable stacks;
  CpuStackCopyTable stack_copies;
  CpuMappingTable mappings;
  ThreadStateTable thread_states;
  CpuSamplingRunTable runs;

  bool empty() const { return samples.size() == 0 && thread_states.size() == 0; }
  void ShiftTimes(int64_t offset);
  // Appends another fragment's tables, renumbering its rows with the merge's remaps.
  void Append(const CpuProfileTables& in, const std::vector<uint32_t>& processes,
              const std::vector<uint32_t>& threads, const std::vector<StringId>& strings,
              int64_t offset);
};

}  // namespace aiprof::model
