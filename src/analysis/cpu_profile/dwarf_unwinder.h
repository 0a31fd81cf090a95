// Offline DWARF unwinding of the user stacks copied with call_graph "dwarf"
// (model::CpuStackCopyTable): libdw's unwinder (elfutils' libdwfl) runs over the recorded
// registers and stack bytes with the call-frame information (.eh_frame, .debug_frame) of
// the files the process had mapped, read from disk at export.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/model.h"

namespace aiprof::analysis {

class DwarfUnwinder {
 public:
  explicit DwarfUnwinder(const model::Model& m);
  ~DwarfUnwinder();
  DwarfUnwinder(const DwarfUnwinder&) = delete;
  DwarfUnwinder& operator=(const DwarfUnwinder&) = delete;

  // The frames of stack copy `copy` of model process `process`, leaf first: the sampled
  // IP, then return addresses, as far as the call-frame information and the copied bytes
  // reach (at least the IP).
  void Unwind(uint32_t process, uint32_t copy, std::vector<uint64_t>* frames);

  // Files whose call-frame information could not be used (changed since collection).
  const std::vector<std::string>& warnings() const { return warnings_; }

  struct Process;  // one libdwfl session per sampled process (dwarf_unwinder.cc)

 private:
  Process* ForProcess(uint32_t process);

  const model::Model& m_;
  std::unordered_map<uint32_t, std::unique_ptr<Process>> processes_;
  std::vector<std::string> warnings_;
};

}  // namespace aiprof::analysis
