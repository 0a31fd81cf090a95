// What every part of the UI's API shares: its error, its streamed answers and its time
// window. Times in answers are ns since the run's start (`origin_ns`), to stay exact in a
// double.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace aiprof::server {

// A request the API cannot answer: bad parameters (status 400) or unknown rows (404).
struct ApiError : std::runtime_error {
  ApiError(int status_code, const std::string& message)
      : std::runtime_error(message), status(status_code) {}
  int status;
};

// Receives a response piece by piece; returns false when the client went away.
using JsonSink = std::function<bool(std::string_view)>;

struct TimeWindow {
  int64_t t0 = 0;  // relative to origin, ns
  int64_t t1 = 0;
  int64_t pixels = 1000;
};

}  // namespace aiprof::server
