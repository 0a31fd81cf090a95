// How long a connection of `aiprof ui` may hold one of its worker threads
// (server/bounded_http_server.h enforces them).
#pragma once

#include <chrono>
#include <cstddef>

namespace aiprof::server {

struct ConnectionLimits {
  std::chrono::milliseconds request_read{5000};  // a whole request, from its first byte
  std::chrono::milliseconds idle{5000};          // between requests on one connection
  std::chrono::milliseconds write{5000};         // one write without progress
  size_t threads = 32;                           // connections served at once
};

}  // namespace aiprof::server
