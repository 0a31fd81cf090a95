// The msprof output layout as the launcher sees it: which PROF_* directories exist, which
// one a process wrote, and how to make one when the app made none.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace aiprof::host {

// Names (not paths) of the PROF_* directories directly under `output_dir`, sorted.
std::vector<std::string> ListProfDirs(const std::string& output_dir);

// The PROF_* directory under `output_dir`, not in `ignore`, whose host/data holds the
// runtime file of `pid` (aiprof.<pid>.data). "" if there is none yet.
std::string FindProcessDir(const std::string& output_dir, const std::set<std::string>& ignore,
                           int pid);

// Creates <output_dir>/PROF_{seq:06}_{YYYYMMDDhhmmssmmm}_{16 alnum}/host/data, seq one past
// the highest existing one. Returns the PROF_* path, "" and `error` on failure.
std::string CreateProfDir(const std::string& output_dir, std::string* error);

// mkdir -p. False and `error` (with the path and errno text) on failure.
bool MakeDirs(const std::string& path, std::string* error);

}  // namespace aiprof::host
