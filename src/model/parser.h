// Entry point of the model: finds PROF_* directories and their raw files and builds one
// model from them, parsing files on `threads` cores.
#pragma once

#include <string>
#include <vector>

#include "model/model.h"

namespace aiprof::model {

// `path` is a PROF_* directory or a parent holding some. Returns the PROF_* directories
// (sorted); on none, `error` says why (missing, not a directory, no PROF_* inside).
std::vector<std::string> FindProfDirs(const std::string& path, std::string* error);

// Folders that hold outputs, logs or caches, never runs: msprof's skip list and ours. Every
// scan for runs (FindProfDirs, model/discovery.h) passes over them.
bool IsSkippedDir(const std::string& name);

// Every *.data file of a PROF_* directory: host/data and device_*/data.
std::vector<std::string> ListRawFiles(const std::string& prof_dir);

struct ParseOptions {
  unsigned threads = 2;
};

Model ParseFiles(const std::vector<std::string>& files, const ParseOptions& options = {});
Model ParseProfDir(const std::string& prof_dir, const ParseOptions& options = {});

}  // namespace aiprof::model
