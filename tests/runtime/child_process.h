// Test helper: programs started with extra environment, stdout on a pipe, reaped or killed.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace aiprof::testing {

inline std::string BuildDir() {
  const char* dir = std::getenv("AIPROF_BUILD_DIR");
  return dir != nullptr ? dir : "build";
}

// Kills the program if a failed assertion leaves the test before it was reaped, so no
// orphan keeps ctest's output pipe open.
struct Child {
  pid_t pid = -1;
  int stdout_fd = -1;
  Child() = default;
  Child(const Child&) = delete;
  Child(Child&& other) noexcept : pid(other.pid), stdout_fd(other.stdout_fd) {
    other.pid = -1;
    other.stdout_fd = -1;
  }
  ~Child() {
    if (pid > 0 && waitpid(pid, nullptr, WNOHANG) == 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    if (stdout_fd >= 0) close(stdout_fd);
  }
};

// Starts `argv` with extra environment entries ("NAME=value"), stdout on a pipe.
inline Child Spawn(const std::vector<std::string>& argv,
                   const std::vector<std::string>& extra_env) {
  int pipe_fds[2];
  EXPECT_EQ(pipe(pipe_fds), 0);
  std::vector<std::string> env_strings(extra_env);
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (std::strncmp(*entry, "AIPROF_OPTIONS=", 15) != 0) env_strings.push_back(*entry);
  }
  std::vector<char*> env, args;
  for (auto& text : env_strings) env.push_back(text.data());
  env.push_back(nullptr);
  std::vector<std::string> argv_copy(argv);
  for (auto& text : argv_copy) args.push_back(text.data());
  args.push_back(nullptr);
  Child child;
  child.pid = fork();
  if (child.pid == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    execve(args[0], args.data(), env.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  child.stdout_fd = pipe_fds[0];
  return child;
}

inline std::string ReadAll(int fd) {
  std::string text;
  char buffer[4096];
  ssize_t length;
  while ((length = read(fd, buffer, sizeof buffer)) > 0) text.append(buffer, length);
  return text;
}

inline std::string ReadLine(int fd) {
  std::string line;
  char c;
  while (read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

inline int Wait(pid_t& pid) {
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  pid = -1;
  return status;
}

// Launch mode as the aiprof launcher sets it: this test process stands for the launcher.
inline std::string Options(const std::string& output, const std::string& extra = "") {
  return "AIPROF_OPTIONS={\"output\":\"" + output +
         "\",\"mode\":\"launch\",\"launcher_pid\":" + std::to_string(getpid()) + extra + "}";
}

}  // namespace aiprof::testing
