#include "model/file_importer.h"

#include "model/file_input.h"

namespace aiprof::model {

const FileImporter* FileImporterFor(const std::string& path, std::string_view head) {
  for (const FileImporter& importer : RegisteredFileImporters()) {
    if (importer.sniff(path, head)) return &importer;
  }
  return nullptr;
}

const FileImporter* FileImporterFor(const std::string& path) {
  return FileImporterFor(path, ReadFileHead(path, kSniffBytes));
}

}  // namespace aiprof::model
