// Runs the built `aiprof` binary (found through AIPROF_BUILD_DIR) and captures its exit
// code and output.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace aiprof::testing {

inline std::string BuildDir() {
  const char* dir = std::getenv("AIPROF_BUILD_DIR");
  return dir ? dir : "build";
}

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// `command` is a shell command line; quote arguments yourself.
inline CommandResult RunShell(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.output.append(buffer, n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

inline CommandResult RunAiprof(const std::string& args) {
  return RunShell(BuildDir() + "/bin/aiprof " + args);
}

}  // namespace aiprof::testing
