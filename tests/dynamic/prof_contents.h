// What a PROF_* directory recorded, read with the project's one reader: the mstx mark
// messages and the step numbers, for checking which events a window holds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aiprof::testing {

struct ProfContents {
  std::vector<std::string> marks;
  std::vector<uint64_t> step_begins;
  std::vector<uint64_t> step_ends;
  std::string problems;  // reader problems, "" when every file was clean
};

ProfContents ReadProfDir(const std::string& prof_dir);

// PROF_* directories directly under `output`, sorted by name (so by sequence number).
std::vector<std::string> ListProfDirs(const std::string& output);

}  // namespace aiprof::testing
