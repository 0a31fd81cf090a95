#include "cli/line_reader.h"

#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <mutex>

namespace aiprof::cli {
namespace {

termios g_saved_termios;
int g_saved_fd = -1;
std::mutex g_terminal_mutex;

void Write(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(STDOUT_FILENO, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

int MillisecondsUntil(std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
}

// Raw input, but signals (Ctrl-C, Ctrl-Z) still work as the user expects. TCSADRAIN, not
// TCSAFLUSH: what was typed ahead (or piped into the terminal) must not be thrown away.
bool EnterRawMode(int fd) {
  std::lock_guard lock(g_terminal_mutex);
  termios raw;
  if (tcgetattr(fd, &raw) != 0) return false;
  if (g_saved_fd < 0) {
    g_saved_termios = raw;
    g_saved_fd = fd;
  }
  raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO | IEXTEN);
  raw.c_iflag &= ~static_cast<tcflag_t>(IXON | ICRNL);
  raw.c_cc[VMIN] = 1;
  raw.c_cc[VTIME] = 0;
  return tcsetattr(fd, TCSADRAIN, &raw) == 0;
}

}  // namespace

void RestoreTerminal() {
  std::lock_guard lock(g_terminal_mutex);
  if (g_saved_fd >= 0) tcsetattr(g_saved_fd, TCSADRAIN, &g_saved_termios);
  g_saved_fd = -1;
}

LineReader::LineReader(int fd) : fd_(fd) {
  editing_ = isatty(fd) && isatty(STDOUT_FILENO);
  if (editing_) std::atexit(RestoreTerminal);
}

LineReader::~LineReader() {
  RestoreTerminal();
}

int LineReader::ReadByte(std::chrono::steady_clock::time_point deadline, char& byte) {
  while (true) {
    pollfd poll_fd{fd_, POLLIN, 0};
    int ready = poll(&poll_fd, 1, MillisecondsUntil(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return -1;
    ssize_t n = read(fd_, &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    return n == 1 ? 1 : 0;
  }
}

ReadStatus LineReader::ReadLine(const std::string& prompt,
                                std::chrono::steady_clock::time_point deadline, std::string& line) {
  if (editing_) return ReadEdited(prompt, deadline, line);
  Write(prompt);
  return ReadPlain(deadline, line);
}

ReadStatus LineReader::ReadPlain(std::chrono::steady_clock::time_point deadline,
                                 std::string& line) {
  while (true) {
    size_t newline = buffered_.find('\n');
    if (newline != std::string::npos) {
      line = buffered_.substr(0, newline);
      buffered_.erase(0, newline + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return ReadStatus::kLine;
    }
    pollfd poll_fd{fd_, POLLIN, 0};
    int ready = poll(&poll_fd, 1, MillisecondsUntil(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return ReadStatus::kTimeout;
    char chunk[4096];
    ssize_t n = read(fd_, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (buffered_.empty()) return ReadStatus::kEndOfInput;
      line.swap(buffered_);
      buffered_.clear();
      return ReadStatus::kLine;
    }
    buffered_.append(chunk, static_cast<size_t>(n));
  }
}

ReadStatus LineReader::ReadEdited(const std::string& prompt,
                                  std::chrono::steady_clock::time_point deadline,
                                  std::string& line) {
  if (!EnterRawMode(fd_)) {
    editing_ = false;
    return ReadLine(prompt, deadline, line);
  }
  std::string text;
  size_t cursor = 0;
  size_t history_index = history_.size();
  auto redraw = [&] {
    Write("\r" + prompt + text + "\x1b[K");
    if (cursor < text.size()) Write("\x1b[" + std::to_string(text.size() - cursor) + "D");
  };
  redraw();
  ReadStatus status = ReadStatus::kLine;
  while (true) {
    char byte;
    int got = ReadByte(deadline, byte);
    if (got < 0) {
      status = ReadStatus::kTimeout;
      break;
    }
    if (got == 0 || (byte == 4 && text.empty())) {  // end of input or Ctrl-D on an empty line
      status = ReadStatus::kEndOfInput;
      break;
    }
    if (byte == '\r' || byte == '\n') break;
    switch (byte) {
      case 1:
        cursor = 0;
        break;  // Ctrl-A
      case 5:
        cursor = text.size();
        break;  // Ctrl-E
      case 11:
        text.erase(cursor);
        break;  // Ctrl-K
      case 21:
        text.erase(0, cursor), cursor = 0;
        break;  // Ctrl-U
      case 4:
        if (cursor < text.size()) text.erase(cursor, 1);
        break;    // Ctrl-D
      case 23: {  // Ctrl-W
        size_t start = cursor;
        while (start > 0 && text[start - 1] == ' ') --start;
        while (start > 0 && text[start - 1] != ' ') --start;
        text.erase(start, cursor - start);
        cursor = start;
        break;
      }
      case 127:
      case 8:
        if (cursor > 0) text.erase(--cursor, 1);
        break;
      case 27: {  // escape sequences: arrows, home/end, delete
        char first, second;
        if (ReadByte(deadline, first) != 1 || ReadByte(deadline, second) != 1) break;
        if (first != '[' && first != 'O') break;
        if (second >= '0' && second <= '9') {
          char tilde;
          if (ReadByte(deadline, tilde) != 1 || tilde != '~') break;
          if (second == '3' && cursor < text.size()) text.erase(cursor, 1);
          if (second == '1' || second == '7') cursor = 0;
          if (second == '4' || second == '8') cursor = text.size();
          break;
        }
        if (second == 'A' && history_index > 0) {
          text = history_[--history_index];
          cursor = text.size();
        } else if (second == 'B' && history_index < history_.size()) {
          ++history_index;
          text = history_index == history_.size() ? std::string() : history_[history_index];
          cursor = text.size();
        } else if (second == 'C' && cursor < text.size()) {
          ++cursor;
        } else if (second == 'D' && cursor > 0) {
          --cursor;
        } else if (second == 'H') {
          cursor = 0;
        } else if (second == 'F') {
          cursor = text.size();
        }
        break;
      }
      default:
        if (static_cast<unsigned char>(byte) >= 32) text.insert(cursor++, 1, byte);
    }
    redraw();
  }
  Write("\r\n");
  RestoreTerminal();
  if (status == ReadStatus::kLine) {
    if (!text.empty() && (history_.empty() || history_.back() != text)) history_.push_back(text);
    line = text;
  }
  return status;
}

}  // namespace aiprof::cli
