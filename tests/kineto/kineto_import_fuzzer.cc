// libFuzzer target: any bytes given to the Kineto importer as a trace file (through a memfd,
// the way ParseFiles reads a file) are imported or skipped and counted, never a crash, and
// in time and memory proportional to their size (scripts/test-sanitizers.sh runs it).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "model/file_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const aiprof::model::FileImporter* kineto = [] {
    for (const aiprof::model::FileImporter& importer : aiprof::model::RegisteredFileImporters()) {
      if (std::string(importer.name) == "kineto") return &importer;
    }
    return static_cast<const aiprof::model::FileImporter*>(nullptr);
  }();
  if (kineto == nullptr) __builtin_trap();
  const int fd = memfd_create("kineto_fuzz", MFD_CLOEXEC);
  if (fd < 0) return 0;
  size_t written = 0;
  while (written < size) {
    const ssize_t n = write(fd, data + written, size - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  kineto->parse("/proc/self/fd/" + std::to_string(fd));
  close(fd);
  return 0;
}
