// The contract between a job's dynamic control channel (in libaiprof.so) and the
// `aiprof --dynamic=on` client: where the socket lives, how it is named, and the line
// protocol's fixed words. Header-only so the CLI shares it without linking runtime code.
//
// Protocol: the client writes one command per line; the job answers each with exactly one
// line starting with "ok" or "error:". On accept the job greets with one line:
//   "ready pid=<pid> state=<idle|collecting> since=<unix seconds>"  (the client now controls)
//   "busy: controlled by pid <N>; state=<..> since=<..>"            (then the job closes)
#pragma once

#include <dirent.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aiprof::dynamic {

inline constexpr std::string_view kSocketPrefix = "aiprof_dynamic_";
// Start and stop commands one connection may send; the next one closes the connection.
inline constexpr int kMaxWindowCommandsPerConnection = 100;
inline constexpr std::string_view kGreetingReady = "ready";
inline constexpr std::string_view kGreetingBusy = "busy:";

// Trust model (docs/dynamic.md): a socket is served only to its job's user (and root), and a
// client talks only to a socket its job serves. The socket lives in a directory nobody else
// can write: $XDG_RUNTIME_DIR (private by specification) when set, else /tmp/aiprof-<uid>,
// created 0700; a job whose usual directory is not private (someone else made it) uses a new
// /tmp/aiprof-<uid>.XXXXXX instead. Both sides check the directory, and each checks the other
// end's credentials (SO_PEERCRED): the job refuses clients of another uid except root, the
// client refuses a socket not served by the job's pid and uid.

// Empty when `path` is a directory (not a symlink) owned by `uid` that no other user can
// write; else what is wrong with it.
inline std::string CheckPrivateDirectory(const std::string& path, uid_t uid) {
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) return path + ": " + std::strerror(errno);
  if (!S_ISDIR(info.st_mode)) return path + " is not a directory";
  if (info.st_uid != uid) {
    return path + " belongs to uid " + std::to_string(info.st_uid) + ", not to uid " +
           std::to_string(uid);
  }
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) return path + " is writable by other users";
  return "";
}

inline std::string TmpSocketDirectory(uid_t uid) {
  return "/tmp/aiprof-" + std::to_string(uid);
}

// Where a job of the calling user puts its socket when that place is private.
inline std::string SocketDirectory() {
  const char* runtime_dir = std::getenv("XDG_RUNTIME_DIR");
  if (runtime_dir != nullptr && runtime_dir[0] != '\0' &&
      CheckPrivateDirectory(runtime_dir, geteuid()).empty()) {
    return runtime_dir;
  }
  return TmpSocketDirectory(geteuid());
}

// Every private directory where a job of user `uid` may have its socket: the caller's
// $XDG_RUNTIME_DIR (own uid), /run/user/<uid>, /tmp/aiprof-<uid> and /tmp/aiprof-<uid>.*.
inline std::vector<std::string> SocketDirectories(uid_t uid) {
  std::vector<std::string> candidates;
  const char* runtime_dir = std::getenv("XDG_RUNTIME_DIR");
  if (uid == geteuid() && runtime_dir != nullptr && runtime_dir[0] != '\0') {
    candidates.push_back(runtime_dir);
  }
  candidates.push_back("/run/user/" + std::to_string(uid));
  const std::string tmp = TmpSocketDirectory(uid);
  candidates.push_back(tmp);
  if (DIR* listing = opendir("/tmp")) {
    const std::string prefix = tmp.substr(5) + ".";
    while (dirent* entry = readdir(listing)) {
      if (std::string_view(entry->d_name).starts_with(prefix)) {
        candidates.push_back("/tmp/" + std::string(entry->d_name));
      }
    }
    closedir(listing);
  }
  std::vector<std::string> directories;
  for (const std::string& candidate : candidates) {
    if (CheckPrivateDirectory(candidate, uid).empty() &&
        std::find(directories.begin(), directories.end(), candidate) == directories.end()) {
      directories.push_back(candidate);
    }
  }
  return directories;
}

inline std::string SocketName(pid_t pid) {
  return std::string(kSocketPrefix) + std::to_string(pid);
}

// The other end of a connected Unix socket.
struct PeerCredentials {
  pid_t pid = 0;
  uid_t uid = static_cast<uid_t>(-1);
  bool known = false;
};
inline PeerCredentials PeerOf(int fd) {
  ucred credentials{};
  socklen_t length = sizeof(credentials);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return {};
  return {credentials.pid, credentials.uid, true};
}

// Whether the job (running as `job_uid`) serves a client of `client_uid`: its own user, and
// root, who may inspect any process anyway.
inline bool ClientAllowed(uid_t client_uid, uid_t job_uid) {
  return client_uid == job_uid || client_uid == 0;
}

// Text that came from a socket, safe to print on a terminal: control characters (escape
// sequences included), the C1 controls U+0080..U+009F and bytes that are not UTF-8 become
// \xNN; other UTF-8 text is kept.
inline std::string PrintableText(std::string_view text) {
  std::string printable;
  printable.reserve(text.size());
  auto escape = [&](unsigned char byte) {
    char escaped[8];
    std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
    printable += escaped;
  };
  for (size_t at = 0; at < text.size();) {
    unsigned char lead = static_cast<unsigned char>(text[at]);
    size_t length = lead < 0x80           ? 1
                    : (lead >> 5) == 0x6  ? 2
                    : (lead >> 4) == 0xE  ? 3
                    : (lead >> 3) == 0x1E ? 4
                                          : 0;
    bool whole = length > 0 && at + length <= text.size();
    for (size_t i = 1; whole && i < length; ++i) {
      whole = (static_cast<unsigned char>(text[at + i]) & 0xC0) == 0x80;
    }
    if (!whole) {
      escape(lead);
      ++at;
    } else if (lead < 0x20 || lead == 0x7F) {
      escape(lead);
      ++at;
    } else if (lead == 0xC2 && static_cast<unsigned char>(text[at + 1]) <= 0x9F) {
      escape(static_cast<unsigned char>(text[at + 1]));
      at += 2;
    } else {
      printable.append(text.substr(at, length));
      at += length;
    }
  }
  return printable;
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
