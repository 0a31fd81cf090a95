// libFuzzer target: the parser (every importer, the merge, nesting, communication
// classification) must survive any payload in chunks with valid checksums, in time and memory
// proportional to the input. Inputs are framed by fuzz_framing.h; scripts/test-sanitizers.sh
// seeds the run with the hostile shapes of hostile_inputs.h.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "format/fuzz_framing.h"
#include "model/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> image = aiprof::testing::FrameRawFile(data, size);
  int fd = memfd_create("aiprof_fuzz", MFD_CLOEXEC);
  if (fd < 0) return 0;
  if (write(fd, image.data(), image.size()) == static_cast<ssize_t>(image.size())) {
    aiprof::model::Model model =
        aiprof::model::ParseFiles({"/proc/self/fd/" + std::to_string(fd)}, {1});
    (void)model;
  }
  close(fd);
  return 0;
}
