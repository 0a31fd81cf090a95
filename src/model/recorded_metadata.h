// What a profiled program recorded about itself in its raw files' metadata (the runtime's
// process metadata, src/runtime/metadata.cc): the environment variables it samples and the
// keys added with aiprof_add_metadata / the Python API's add_metadata and
// add_metadata_json ("user.<key>"). One reader for every output that shows them: the
// timeline's top-level keys, the database's META_DATA, the Python API's
// profiler_metadata.json. And what the Python API recorded about tensors alive when a window
// stopped (the memory analysis's categories read it).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/model.h"

namespace aiprof::model {

struct RecordedMetadata {
  // Sampled environment variables, name → value, by name; the first process to record a
  // name wins.
  std::vector<std::pair<std::string, std::string>> environment;
  // add_metadata keys (without "user."), key → value as JSON text, in key order; the first
  // process to set a key wins; keys set to null (unset) are left out.
  std::vector<std::pair<std::string, std::string>> user;
};

RecordedMetadata ReadRecordedMetadata(const Model& model);

// The role of a tensor's storage alive when the window stopped, found by the Python API from
// the live nn.Module and Optimizer objects ("memory_roles" under the window's metadata:
// {"parameter": [data_ptr...], "gradient": [...], "optimizer_state": [...]}). Allocator
// events carry no tensor ids; this is how a block still allocated at the end is known to be
// a parameter, a gradient or optimizer state.
enum class TensorRole : uint8_t { kParameter, kGradient, kOptimizerState };
struct TensorRoleAt {
  uint64_t address = 0;
  TensorRole role = TensorRole::kParameter;
  bool operator<(const TensorRoleAt& o) const { return address < o.address; }
};
// The roles `process` (a ProcessTable row) recorded, by address; the first role recorded for
// an address wins (a parameter's storage stays a parameter).
std::vector<TensorRoleAt> ReadTensorRoles(const Model& model, uint32_t process);

}  // namespace aiprof::model
