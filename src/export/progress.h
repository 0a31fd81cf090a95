// A progress bar on stderr, shown only on a terminal and only once the work has taken more
// than a second (short exports stay silent). With `plain_lines` (the export after a
// collection), output that is not a terminal gets one line per stage instead.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace aiprof::exporter {

class Progress {
 public:
  explicit Progress(bool plain_lines = false)
      : enabled_(isatty(STDERR_FILENO) == 1),
        plain_lines_(plain_lines && !enabled_),
        start_(Clock::now()) {}
  ~Progress() { Done(); }

  void Update(double fraction, const std::string& label) {
    if (plain_lines_) {
      std::fprintf(stderr, "[aiprof] %3d%% %s\n", static_cast<int>(fraction * 100), label.c_str());
      return;
    }
    if (!enabled_ || Clock::now() - start_ < std::chrono::seconds(1)) return;
    constexpr int kWidth = 30;
    int filled = static_cast<int>(fraction * kWidth + 0.5);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(kWidth, ' ');
    std::fprintf(stderr, "\r[%s] %3d%% %-40.40s", bar.c_str(), static_cast<int>(fraction * 100),
                 label.c_str());
    std::fflush(stderr);
    shown_ = true;
  }
  void Done() {
    if (shown_) std::fprintf(stderr, "\r%80s\r", "");
    shown_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool plain_lines_;
  bool shown_ = false;
  Clock::time_point start_;
};

}  // namespace aiprof::exporter
