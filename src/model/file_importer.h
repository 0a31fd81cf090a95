// Whole-file importers: trace formats other than aiprof's raw data, read into the same
// model fragment a raw file gives (model/file_parser.h), so merging, every analysis and
// every exporter treat them alike. A format adds one file
// `src/model/importers/<name>_importer.cc` containing
//
//   AIPROF_DEFINE_FILE_IMPORTER(<name>) {
//     static const FileImporter importer{"<name>", "what it reads", &Sniff, &Parse};
//     return importer;
//   }
//
// CMake finds the macro in the file and adds it to the generated registry beside the record
// importers (importer.h), so adding a format edits no shared file.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "model/file_parser.h"

namespace aiprof::model {

struct FileImporter {
  const char* name;         // "kineto"
  const char* description;  // "Kineto / torch.profiler JSON trace (.json, .json.gz)"
  // True when a file whose first bytes (gzip decoded) are `head` is in this format.
  bool (*sniff)(const std::string& path, std::string_view head);
  // Never fails as a whole: problems go to fragment.model.files[0] (report, error, notes).
  Fragment (*parse)(const std::string& path);
};

// Every file importer compiled into aiprof_model (generated from importers/*_importer.cc).
std::span<const FileImporter> RegisteredFileImporters();

// How many decoded bytes of a file the sniffers see.
inline constexpr size_t kSniffBytes = 64 << 10;

// The importer of `path` (from its first kSniffBytes), nullptr for anything else (aiprof raw
// data is read by ParseRawFile).
const FileImporter* FileImporterFor(const std::string& path);
// The same for a head already read.
const FileImporter* FileImporterFor(const std::string& path, std::string_view head);

}  // namespace aiprof::model

#define AIPROF_DEFINE_FILE_IMPORTER(name) \
  const ::aiprof::model::FileImporter& aiprof_file_importer_##name()
