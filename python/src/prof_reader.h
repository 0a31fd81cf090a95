// Reads the raw files of one PROF_* directory into plain event lists for the Python
// package (chrome trace, stacks, memory timeline, step checks). Times are converted to
// CLOCK_REALTIME ns with the files' ClockSync samples.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "format/torch_inputs.h"

namespace aiprof::python {

struct OpEvent {
  uint32_t pid, tid;
  int64_t start_ns, end_ns;
  std::string name;
  uint8_t scope;
  bool closed;
  uint64_t record_id;
  int64_t sequence_nr;
  uint64_t forward_thread_id, thread_id;
  bool has_inputs;  // record_shapes
  std::vector<format::TorchInput> inputs;
  uint64_t flops;  // with_flops, for the operators it counts; 0 otherwise
};

struct SpanEvent {  // Python calls, modules, steps, ranges, GCs
  uint32_t pid, tid;
  int64_t start_ns, end_ns;
  std::string name;
  int64_t value;  // step number, GC generation
};

struct MemoryEvent {
  uint32_t pid, tid;
  int64_t ts_ns;
  uint64_t address;
  int64_t bytes, total_allocated, total_reserved;
  uint8_t device_type;
  int16_t device_index;  // -1: none
  bool out_of_memory;
};

struct MarkEvent {
  uint32_t pid, tid;
  int64_t ts_ns;
  std::string message;
};

struct ProfData {
  std::vector<OpEvent> ops;
  std::vector<SpanEvent> python_calls, modules, steps, ranges, gcs;
  std::vector<MemoryEvent> memory;
  std::vector<MarkEvent> marks;
  std::map<uint32_t, std::string> thread_names;  // tid -> name
  std::vector<std::string> metadata_json;        // one per file (last chunk wins)
  std::vector<std::string> files;
  uint64_t dropped = 0;
  std::vector<std::string> problems;  // corrupt or truncated data that was skipped
};

// Reads every host/data/aiprof.*.data file under `prof_dir`. Throws std::runtime_error
// when the directory holds no readable raw file.
ProfData ReadProfDir(const std::string& prof_dir);

}  // namespace aiprof::python
