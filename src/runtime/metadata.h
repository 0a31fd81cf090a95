// What a window's info.json and Metadata chunks say about the process, and the PROF_*
// directory naming of msprof.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace aiprof::runtime {

// pid, ppid, hostname, cmdline, exe (the executable's name) and exe_path, cpu_model,
// rank/local_rank/world_size/local_world_size (the launcher's variables: torchrun, Slurm,
// OpenMPI; null when unset), environment.
nlohmann::json ProcessMetadata();

// The kernel names a program started as /proc/self/exe "exe" (its comm): replaces that
// name of the main thread with the real executable's (at most 15 characters).
void CorrectExecutableName(char name[16]);

// Creates <output>/PROF_{seq:06}_{YYYYMMDDhhmmssmmm}_{16 alnum} (local time) and its
// host/data/; `dir` gets the absolute path. seq < 0: one more than the largest sequence
// number already in `output`. Retries on a name collision.
bool CreateProfDir(const std::string& output, int64_t seq, std::string* dir, std::string* error);

// mkdir -p.
bool MakeDirectories(const std::string& path, std::string* error);

// Writes `path` through a temporary file and rename, so readers never see half a file.
bool WriteFileAtomically(const std::string& path, const std::string& content, std::string* error);

}  // namespace aiprof::runtime
