// Python frames of CPU samples (CPython 3.11, timer mode). The SIGPROF handler runs on the
// sampled thread, so it reads that thread's own PyThreadState (the autoTSSkey TLS slot,
// set for every thread that ran Python, whether or not it holds the GIL) and walks its
// frame chain (cframe->current_frame → previous) with process_vm_readv: a frame being
// pushed or freed at that instant yields a failed read or a stray pointer, never a fault.
// It records raw code-object pointers; the writer thread names them (PythonCodeNames)
// while the process lives, and the export merges them into the native stack at each
// _PyEval_EvalFrameDefault frame (src/analysis/cpu_profile).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

namespace aiprof::cpu_sampling {

// Looks for a CPython in this process and checks its version against the layout built in
// (python_layout.c). True when Python frames will be read; *status says what runs or why
// not ("" when the process is not Python at all).
bool EnablePythonStacks(std::string* status);
void DisablePythonStacks();

// Signal handler (async-signal-safe, allocation-free): the calling thread's Python frames,
// innermost first: code[i] the code object, info[i] = instruction index (low 32 bits,
// UINT32_MAX when not known) | format::kCpuPythonEntry for the frame a C call of
// _PyEval_EvalFrameDefault started with. Returns the count; *truncated when the chain
// went on past `max`.
uint32_t ReadPythonStack(uint64_t* code, uint64_t* info, uint32_t max, bool* truncated);

// Writer thread: names code objects as "qualname (file.py:line)" (line: the code's first
// line) with their file path, re-reading one whose pointer, type, name, file or first line
// changed since it was named (a freed code object whose address was reused). A known code
// object is checked once per flush (NextFlush), not at each of its frames: one
// process_vm_readv per distinct code object and flush.
class PythonCodeNames {
 public:
  struct Named {
    std::string name;
    std::string file;
  };
  // True (and *named filled) when `code` is new or changed since it was last named: a
  // code object that cannot be read is named "[unknown Python code]". False when known
  // and unchanged.
  bool Update(uint64_t code, Named* named);
  // Before a flush's samples: every known code object is checked again at its next frame.
  void NextFlush() { ++flush_; }
  void Clear() { known_.clear(); }

 private:
  struct Identity {
    uint64_t type = 0, qualname = 0, filename = 0;
    int32_t first_line = 0;
    bool operator==(const Identity&) const = default;
  };
  struct Known {
    Identity identity;
    uint64_t checked_in_flush = 0;
  };
  std::unordered_map<uint64_t, Known> known_;
  uint64_t flush_ = 1;
};

}  // namespace aiprof::cpu_sampling
