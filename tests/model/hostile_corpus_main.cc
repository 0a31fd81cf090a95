// Writes the hostile inputs of hostile_inputs.h into a directory, one file each: the seed
// corpus of raw_parser_fuzzer (scripts/test-sanitizers.sh).
#include <cstdio>
#include <fstream>

#include "model/hostile_inputs.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus directory>\n", argv[0]);
    return 2;
  }
  for (const aiprof::testing::HostileInput& input : aiprof::testing::HostileInputs()) {
    std::ofstream out(std::string(argv[1]) + "/" + input.name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(input.bytes.data()),
              static_cast<std::streamsize>(input.bytes.size()));
    if (!out) return 1;
  }
  return 0;
}
