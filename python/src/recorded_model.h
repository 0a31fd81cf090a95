// The Python package's view of recorded data: one model (src/model) parsed from one or
// more PROF_* directories, the Kineto trace written by the exporter `aiprof export` uses,
// and the model's PyTorch operators and allocator events as columns for key_averages(),
// events(), export_stacks() and the memory timeline. Nothing here reads raw records.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"

namespace aiprof::python {

// One torch operator (or record_function range) of the model, by column.
struct OperatorColumns {
  std::vector<uint32_t> pid, tid;
  std::vector<int64_t> start_ns, end_ns, self_ns;
  std::vector<std::string> name;
  std::vector<uint8_t> user_annotation;  // record_function / ProfilerStep#N
  std::vector<uint8_t> closed;           // its end was recorded (not closed at the data's end)
  std::vector<uint8_t> backward;         // the backward end of a forward→backward link
  std::vector<uint64_t> record_id;
  std::vector<int64_t> sequence_nr;  // -1: none
  std::vector<uint64_t> fwd_thread;  // Kineto's "Fwd thread id"; 0: none
  std::vector<uint64_t> flops;
  // Kineto's JSON texts ("" when the operator has none): Input Dims, Input type,
  // Concrete Inputs.
  std::vector<std::string> input_dims, input_types, concrete_inputs;
  std::vector<std::string> call_stack;        // innermost frame first, ';' between frames
  std::vector<std::string> module_hierarchy;  // "Model.Linear_0"
  std::vector<int64_t> parent;                // index of the enclosing operator, -1: none
  size_t size() const { return pid.size(); }
};

// One PyTorch allocator event ("[memory]" / "[OutOfMemory]" instants), by column.
struct MemoryColumns {
  std::vector<uint32_t> pid, tid;
  std::vector<int64_t> ts_ns;
  std::vector<uint64_t> address;
  std::vector<int64_t> bytes, total_allocated, total_reserved;
  std::vector<int32_t> device_type, device_index;  // device_index -1: none
  std::vector<uint8_t> out_of_memory;
  size_t size() const { return pid.size(); }
};

// The steps of the model's step model (model/steps.h), by column, by step id.
struct StepColumns {
  std::vector<uint32_t> id;
  std::vector<uint64_t> step;  // the user's number
  std::vector<uint32_t> loop;  // loop ordinal within its process
  std::vector<std::string> label;  // "3", or "1:3" when a process has several loops
  std::vector<uint32_t> pid, tid;
  std::vector<int64_t> start_ns, end_ns;
  std::vector<uint8_t> has_range;  // false for steps bounded by Optimizer.step
  std::string source;              // model::StepSourceName of the run's steps
  size_t size() const { return id.size(); }
};

class RecordedModel {
 public:
  // Parses every raw file of `prof_dirs` into one model. Throws std::runtime_error naming
  // the directory when one holds no raw data.
  explicit RecordedModel(const std::vector<std::string>& prof_dirs);

  // The Kineto JSON trace, by the same writer as `aiprof export` (trace_view_*.json).
  void WriteChromeTrace(const std::string& path, const std::string& trace_name) const;

  OperatorColumns Operators() const;
  MemoryColumns Memory() const;
  StepColumns Steps() const;

  uint64_t dropped() const { return model_.drops.total(); }
  // Files that could not be read or held corrupt chunks, one line each.
  std::vector<std::string> Problems() const;
  const std::vector<std::string>& files() const { return files_; }
  const model::Model& model() const { return model_; }

 private:
  std::vector<std::string> files_;
  model::Model model_;
};

}  // namespace aiprof::python
