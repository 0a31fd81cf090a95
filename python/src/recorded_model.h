// The Python package's view of recorded data: one model (src/model) parsed from one or
// more PROF_* directories, the Kineto trace written by the exporter `aiprof export` uses,
// and the model's PyTorch operators and allocator events as columns for key_averages(),
// events(), export_stacks() and the memory timeline. Nothing here reads raw records.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analysis_set.h"
#include "model/model.h"

namespace aiprof::python {

// The column lists below name each column once: X(type, name) declares the struct's member
// and module.cc's ToPython puts it into the dict under the same name. Flags are uint8_t
// columns, given to Python as lists of bool. (Comments inside the lists are /* */: a //
// comment would swallow the line continuation.)

// One framework operator (model/framework_operators.h: a torch operator or record_function
// range) of the model, by column.
#define AIPROF_OPERATOR_COLUMNS(X)                                                              \
  X(std::vector<uint32_t>, pid)                                                                 \
  X(std::vector<uint32_t>, tid)                                                                 \
  X(std::vector<int64_t>, start_ns)                                                             \
  X(std::vector<int64_t>, end_ns)                                                               \
  X(std::vector<int64_t>, self_ns)                                                              \
  X(std::vector<std::string>, name)                                                             \
  X(std::vector<uint8_t>, user_annotation) /* record_function / ProfilerStep#N */               \
  X(std::vector<uint8_t>, closed)   /* its end was recorded (not closed at the data's end) */   \
  X(std::vector<uint8_t>, backward) /* the backward end of a forward→backward link */         \
  X(std::vector<uint64_t>, record_id)                                                           \
  X(std::vector<int64_t>, sequence_nr) /* -1: none */                                           \
  X(std::vector<uint64_t>, fwd_thread) /* Kineto's "Fwd thread id"; 0: none */                  \
  X(std::vector<uint64_t>, flops)                                                               \
  /* Kineto's JSON texts ("" when the operator has none): Input Dims, Input type, Concrete      \
     Inputs. */                                                                                 \
  X(std::vector<std::string>, input_dims)                                                       \
  X(std::vector<std::string>, input_types)                                                      \
  X(std::vector<std::string>, concrete_inputs)                                                  \
  X(std::vector<std::string>, call_stack)       /* innermost frame first, ';' between frames */ \
  X(std::vector<std::string>, module_hierarchy) /* "Model.Linear_0" */                          \
  X(std::vector<int64_t>, parent)               /* index of the enclosing operator, -1: none */ \
  /* The memory analysis' figures (analysis/memory.h), bytes: torch's Self CPU Mem, CPU Mem,    \
     Self CUDA Mem, CUDA Mem. */                                                                \
  X(std::vector<int64_t>, self_cpu_memory)                                                      \
  X(std::vector<int64_t>, cpu_memory)                                                           \
  X(std::vector<int64_t>, self_device_memory)                                                   \
  X(std::vector<int64_t>, device_memory)

// One PyTorch allocator event ("[memory]" / "[OutOfMemory]" instants), by column.
#define AIPROF_MEMORY_COLUMNS(X)                                                             \
  X(std::vector<uint32_t>, pid)                                                              \
  X(std::vector<uint32_t>, tid)                                                              \
  X(std::vector<int64_t>, ts_ns)                                                             \
  X(std::vector<uint64_t>, address)                                                          \
  X(std::vector<int64_t>, bytes)                                                             \
  X(std::vector<int64_t>, total_allocated)                                                   \
  X(std::vector<int64_t>, total_reserved)                                                    \
  X(std::vector<int32_t>, device_type)                                                       \
  X(std::vector<int32_t>, device_index) /* -1: none */                                       \
  X(std::vector<uint8_t>, out_of_memory)                                                     \
  /* The memory analysis found no framework operator around it on its thread (torch lists    \
     such an event as a "[memory]" event of its own). */                                     \
  X(std::vector<uint8_t>, outside_operators)                                                 \
  /* The memory analysis' category (analysis::MemoryCategory, torch's memory timeline order) \
     of the block the event allocates or frees; -1: a free of a block allocated before the   \
     data starts, or an out-of-memory event. */                                              \
  X(std::vector<int8_t>, category)

// The steps of the model's step model (model/steps.h), by column, by step id.
#define AIPROF_STEP_COLUMNS(X)                                                            \
  X(std::vector<uint32_t>, id)                                                            \
  X(std::vector<uint64_t>, step)     /* the user's number */                              \
  X(std::vector<uint32_t>, loop)     /* loop ordinal within its process */                \
  X(std::vector<std::string>, label) /* "3", or "1:3" when a process has several loops */ \
  X(std::vector<uint32_t>, pid)                                                           \
  X(std::vector<uint32_t>, tid)                                                           \
  X(std::vector<int64_t>, start_ns)                                                       \
  X(std::vector<int64_t>, end_ns)                                                         \
  X(std::vector<uint8_t>, has_range) /* false for steps bounded by Optimizer.step */

#define AIPROF_DECLARE_COLUMN(type, name) type name;

struct OperatorColumns {
  AIPROF_OPERATOR_COLUMNS(AIPROF_DECLARE_COLUMN)
  size_t size() const { return pid.size(); }
};

struct MemoryColumns {
  AIPROF_MEMORY_COLUMNS(AIPROF_DECLARE_COLUMN)
  size_t size() const { return pid.size(); }
};

struct StepColumns {
  AIPROF_STEP_COLUMNS(AIPROF_DECLARE_COLUMN)
  std::string source;  // model::StepSourceName of the run's steps (one value, not a column)
  size_t size() const { return id.size(); }
};

#undef AIPROF_DECLARE_COLUMN

class RecordedModel {
 public:
  // Parses every raw file of `prof_dirs` into one model. Throws std::runtime_error naming
  // the directory when one holds no raw data.
  explicit RecordedModel(const std::vector<std::string>& prof_dirs);

  // The Kineto JSON trace, by the same writer as `aiprof export` (trace_view_*.json).
  void WriteChromeTrace(const std::string& path, const std::string& trace_name) const;

  OperatorColumns Operators() const;
  MemoryColumns Memory() const;
  // The environment variables the runtime sampled (model/recorded_metadata.h), by name.
  std::vector<std::pair<std::string, std::string>> Environment() const;

  // The analyses `aiprof export` runs, computed once for this model on first use: the trace
  // and the memory figures above read them.
  const analysis::AnalysisSet& Analyses() const;
  StepColumns Steps() const;

  uint64_t dropped() const { return model_.drops.total(); }
  // The collection window's start (realtime ns); without one, the second below its first event.
  int64_t start_ns() const;
  // Files that could not be read or held corrupt chunks, one line each.
  std::vector<std::string> Problems() const;
  const std::vector<std::string>& files() const { return files_; }
  const model::Model& model() const { return model_; }

 private:
  std::vector<std::string> files_;
  model::Model model_;
  mutable std::once_flag analyses_once_;
  mutable std::unique_ptr<analysis::AnalysisSet> analyses_;
};

}  // namespace aiprof::python
