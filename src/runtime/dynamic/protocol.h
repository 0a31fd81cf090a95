// The contract between a job's dynamic control channel (in libaiprof.so) and the
// `aiprof --dynamic=on` client: where the socket lives, how it is named, and the line
// protocol's fixed words. Header-only so the CLI shares it without linking runtime code.
//
// Protocol: the client writes one command per line; the job answers each with exactly one
// line starting with "ok" or "error:". On accept the job greets with one line:
//   "ready pid=<pid> state=<idle|collecting> since=<unix seconds>"  (the client now controls)
//   "busy: controlled by pid <N>; state=<..> since=<..>"            (then the job closes)
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace aiprof::dynamic {

inline constexpr std::string_view kSocketPrefix = "aiprof_dynamic_";
// Start and stop commands one connection may send; the next one closes the connection.
inline constexpr int kMaxWindowCommandsPerConnection = 100;
inline constexpr std::string_view kGreetingReady = "ready";
inline constexpr std::string_view kGreetingBusy = "busy:";

// $XDG_RUNTIME_DIR when set and non-empty, else $HOME, else /tmp.
inline std::string SocketDirectory() {
  for (const char* name : {"XDG_RUNTIME_DIR", "HOME"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && value[0] != '\0') return value;
  }
  return "/tmp";
}

inline std::string SocketPath(pid_t pid) {
  return SocketDirectory() + "/" + std::string(kSocketPrefix) + std::to_string(pid);
}

// The pid in a socket file name "aiprof_dynamic_<pid>", or nullopt for other names.
inline std::optional<pid_t> ParseSocketPid(std::string_view file_name) {
  if (file_name.substr(0, kSocketPrefix.size()) != kSocketPrefix) return std::nullopt;
  std::string_view digits = file_name.substr(kSocketPrefix.size());
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  pid_t pid = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    pid = pid * 10 + (c - '0');
  }
  return pid > 0 ? std::optional<pid_t>(pid) : std::nullopt;
}

// EPERM means the process exists but belongs to someone else: alive.
inline bool IsProcessAlive(pid_t pid) {
  return kill(pid, 0) == 0 || errno == EPERM;
}

// Value of `key=` in a greeting or status line ("" if absent).
inline std::string FieldValue(std::string_view line, std::string_view key) {
  std::string pattern = std::string(key) + "=";
  size_t at = 0;
  while ((at = line.find(pattern, at)) != std::string_view::npos) {
    if (at == 0 || line[at - 1] == ' ' || line[at - 1] == ';') {
      size_t begin = at + pattern.size();
      size_t end = line.find_first_of(" ;", begin);
      return std::string(line.substr(begin, end == std::string_view::npos ? end : end - begin));
    }
    at += pattern.size();
  }
  return "";
}

}  // namespace aiprof::dynamic
