// Runs a program for a test with extra environment variables, its stdin and stdout as
// pipes (stderr joins stdout) or a pseudo-terminal, and line-by-line reading with a bound so a
// broken program fails the test instead of hanging it.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace aiprof::testing {

class Subprocess {
 public:
  // env: "NAME=VALUE" entries added to (or replacing in) the test's environment.
  // use_pty: stdin/stdout/stderr are a new pseudo-terminal instead of pipes (stderr then
  // goes to the terminal too).
  Subprocess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
             bool use_pty = false);
  ~Subprocess();

  pid_t pid() const { return pid_; }
  void Write(const std::string& text);
  void CloseStdin();
  // Reads until a line containing `needle` arrives; returns it, or "" after timeout_ms or EOF.
  std::string ReadUntil(const std::string& needle, int timeout_ms = 20000);
  // Everything read so far.
  const std::string& output() const { return output_; }
  // Reads the rest of the output, then waits; returns the exit code (128+signal if killed).
  int Wait(int timeout_ms = 20000);
  void Kill(int signal_number);

 private:
  bool ReadMore(int timeout_ms);

  pid_t pid_ = -1;
  int in_fd_ = -1;
  int out_fd_ = -1;
  std::string output_;
  size_t consumed_ = 0;  // output_ up to here was returned by ReadUntil
  int exit_code_ = -1;
};

// $AIPROF_BUILD_DIR (set by ctest), else "build".
std::string BuildDir();

}  // namespace aiprof::testing
