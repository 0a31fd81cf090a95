#include "model/cpu_profile.h"

namespace aiprof::model {

void CpuProfileTables::ShiftTimes(int64_t offset) {
  for (int64_t& ts : samples.ts) ts += offset;
  for (int64_t& ts : thread_states.ts) ts += offset;
  for (int64_t& end : thread_states.end) end += offset;
}

void CpuProfileTables::Append(const CpuProfileTables& in, const std::vector<uint32_t>& processes,
                              const std::vector<uint32_t>& threads,
                              const std::vector<StringId>& strings, int64_t offset) {
  uint32_t stack_base = static_cast<uint32_t>(stacks.size());
  uint32_t frame_base = static_cast<uint32_t>(stacks.frames.size());
  uint32_t copy_base = static_cast<uint32_t>(stack_copies.size());
  uint32_t python_base = static_cast<uint32_t>(stacks.python_name.size());
  for (size_t i = 0; i < in.stacks.size(); ++i) {
    stacks.process.push_back(processes[in.stacks.process[i]]);
    stacks.kernel_leaf.push_back(in.stacks.kernel_leaf[i]);
    stacks.begin.push_back(frame_base + in.stacks.begin[i + 1]);
    uint32_t copy = in.stacks.copy[i];
    stacks.copy.push_back(copy == UINT32_MAX ? copy : copy + copy_base);
    stacks.python_begin.push_back(python_base + in.stacks.python_begin[i + 1]);
    stacks.python_truncated.push_back(in.stacks.python_truncated[i]);
  }
  for (size_t i = 0; i < in.stacks.python_name.size(); ++i) {
    stacks.python_name.push_back(strings[in.stacks.python_name[i]]);
    stacks.python_file.push_back(strings[in.stacks.python_file[i]]);
  }
  stacks.python_entry.insert(stacks.python_entry.end(), in.stacks.python_entry.begin(),
                             in.stacks.python_entry.end());
  uint64_t byte_base = stack_copies.bytes.size();
  for (size_t i = 0; i < in.stack_copies.size(); ++i) {
    stack_copies.begin.push_back(byte_base + in.stack_copies.begin[i + 1]);
  }
  stack_copies.regs.insert(stack_copies.regs.end(), in.stack_copies.regs.begin(),
                           in.stack_copies.regs.end());
  stack_copies.bytes.insert(stack_copies.bytes.end(), in.stack_copies.bytes.begin(),
                            in.stack_copies.bytes.end());
  stacks.frames.insert(stacks.frames.end(), in.stacks.frames.begin(), in.stacks.frames.end());
  auto stack_row = [&](uint32_t row) { return row == UINT32_MAX ? row : row + stack_base; };
  for (size_t i = 0; i < in.samples.size(); ++i) {
    samples.ts.push_back(in.samples.ts[i] + offset);
    samples.thread.push_back(threads[in.samples.thread[i]]);
    samples.stack.push_back(stack_row(in.samples.stack[i]));
    samples.flags.push_back(in.samples.flags[i]);
    samples.cpu.push_back(in.samples.cpu[i]);
  }
  for (size_t i = 0; i < in.mappings.size(); ++i) {
    mappings.process.push_back(processes[in.mappings.process[i]]);
    mappings.start.push_back(in.mappings.start[i]);
    mappings.end.push_back(in.mappings.end[i]);
    mappings.file_offset.push_back(in.mappings.file_offset[i]);
    mappings.path.push_back(strings[in.mappings.path[i]]);
    mappings.build_id.push_back(in.mappings.build_id[i]);
  }
  for (size_t i = 0; i < in.thread_states.size(); ++i) {
    thread_states.thread.push_back(threads[in.thread_states.thread[i]]);
    thread_states.ts.push_back(in.thread_states.ts[i] + offset);
    thread_states.end.push_back(in.thread_states.end[i] + offset);
    thread_states.state.push_back(in.thread_states.state[i]);
    thread_states.stack.push_back(stack_row(in.thread_states.stack[i]));
  }
  for (size_t i = 0; i < in.runs.size(); ++i) {
    runs.process.push_back(processes[in.runs.process[i]]);
    runs.mode.push_back(in.runs.mode[i]);
    runs.reason.push_back(strings[in.runs.reason[i]]);
    runs.freq_hz.push_back(in.runs.freq_hz[i]);
  }
}

}  // namespace aiprof::model
