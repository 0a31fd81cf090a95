#include "subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace aiprof::testing {

std::string BuildDir() {
  const char* dir = std::getenv("AIPROF_BUILD_DIR");
  return dir != nullptr && *dir ? dir : "build";
}

Subprocess::Subprocess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                       bool use_pty) {
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string text = *entry;
    std::string name = text.substr(0, text.find('='));
    bool replaced = false;
    for (const std::string& added : env) replaced |= added.substr(0, added.find('=')) == name;
    if (!replaced) environment.push_back(text);
  }
  environment.insert(environment.end(), env.begin(), env.end());
  std::vector<char*> argv_pointers, env_pointers;
  for (const std::string& argument : argv)
    argv_pointers.push_back(const_cast<char*>(argument.c_str()));
  for (const std::string& entry : environment)
    env_pointers.push_back(const_cast<char*>(entry.c_str()));
  argv_pointers.push_back(nullptr);
  env_pointers.push_back(nullptr);
  if (use_pty) {
    int master = -1;
    pid_ = forkpty(&master, nullptr, nullptr, nullptr);
    if (pid_ == 0) {
      execve(argv_pointers[0], argv_pointers.data(), env_pointers.data());
      _exit(127);
    }
    in_fd_ = master;
    out_fd_ = dup(master);
    return;
  }
  int in_pipe[2], out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0) return;
  pid_ = fork();
  if (pid_ == 0) {
    dup2(in_pipe[0], STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(out_pipe[1], STDERR_FILENO);
    execve(argv_pointers[0], argv_pointers.data(), env_pointers.data());
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  in_fd_ = in_pipe[1];
  out_fd_ = out_pipe[0];
}

Subprocess::~Subprocess() {
  if (exit_code_ < 0 && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  CloseStdin();
  if (out_fd_ >= 0) close(out_fd_);
}

void Subprocess::Write(const std::string& text) {
  if (in_fd_ < 0) return;
  ssize_t written = write(in_fd_, text.data(), text.size());
  (void)written;
}

void Subprocess::CloseStdin() {
  if (in_fd_ >= 0) close(in_fd_);
  in_fd_ = -1;
}

bool Subprocess::ReadMore(int timeout_ms) {
  pollfd poll_fd{out_fd_, POLLIN, 0};
  if (poll(&poll_fd, 1, timeout_ms) <= 0) return false;
  char buffer[4096];
  ssize_t n = read(out_fd_, buffer, sizeof(buffer));
  if (n <= 0) return false;  // EOF (or EIO when a pty's last writer closed)
  output_.append(buffer, static_cast<size_t>(n));
  return true;
}

std::string Subprocess::ReadUntil(const std::string& needle, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    size_t found = output_.find(needle, consumed_);
    if (found != std::string::npos) {
      size_t line_start = output_.rfind('\n', found);
      line_start =
          line_start == std::string::npos || line_start < consumed_ ? consumed_ : line_start + 1;
      size_t line_end = output_.find('\n', found);
      if (line_end == std::string::npos) line_end = output_.size();
      consumed_ = line_end;
      return output_.substr(line_start, line_end - line_start);
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !ReadMore(static_cast<int>(left.count()))) return "";
  }
}

int Subprocess::Wait(int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline && ReadMore(100)) {
  }
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      exit_code_ = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
      while (ReadMore(0)) {
      }
      return exit_code_;
    }
    ReadMore(10);
  }
  return -1;
}

void Subprocess::Kill(int signal_number) {
  kill(pid_, signal_number);
}

}  // namespace aiprof::testing
