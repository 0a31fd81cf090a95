// What a profiled program recorded about itself in its raw files' metadata (the runtime's
// process metadata, src/runtime/metadata.cc): the environment variables it samples and the
// keys added with aiprof_add_metadata / the Python API's add_metadata and
// add_metadata_json ("user.<key>"). One reader for every output that shows them: the
// timeline's top-level keys, the database's META_DATA, the Python API's
// profiler_metadata.json.
#pragma once

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

}  // namespace aiprof::model
