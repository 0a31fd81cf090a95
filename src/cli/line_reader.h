// Reads command lines for the dynamic prompt: with line editing (left/right, home/end,
// backspace/delete, Ctrl-A/E/K/U/W) and history (up/down) when stdin is a terminal, plain
// lines otherwise so the prompt can be scripted. A small raw-mode editor instead of GNU
// readline keeps the CLI free of GPL code.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace aiprof::cli {

enum class ReadStatus { kLine, kEndOfInput, kTimeout };

class LineReader {
 public:
  explicit LineReader(int fd = 0);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Prints `prompt` and reads one line; gives up at `deadline`.
  ReadStatus ReadLine(const std::string& prompt, std::chrono::steady_clock::time_point deadline,
                      std::string& line);
  bool editing() const { return editing_; }

 private:
  ReadStatus ReadPlain(std::chrono::steady_clock::time_point deadline, std::string& line);
  ReadStatus ReadEdited(const std::string& prompt, std::chrono::steady_clock::time_point deadline,
                        std::string& line);
  // One byte, waiting at most until deadline: 1 read, 0 end of input, -1 timeout.
  int ReadByte(std::chrono::steady_clock::time_point deadline, char& byte);

  int fd_;
  bool editing_ = false;
  std::string buffered_;  // plain mode: bytes after the last newline
  std::vector<std::string> history_;
};

// Puts the terminal back as it was (also registered with atexit while editing).
void RestoreTerminal();

}  // namespace aiprof::cli
