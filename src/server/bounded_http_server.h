// A cpp-httplib server whose connections cannot hold its worker threads for long.
//
// cpp-httplib 0.11 (Debian's) bounds each read of a request by a timeout but not the
// request as a whole, so a client that sends one header byte every few seconds keeps a
// worker thread forever, and ten such clients stopped `aiprof ui` answering anyone. Here
// each request must arrive whole (request line, headers, body) within `request_read` of its
// first byte, a kept-alive connection is closed after `idle` without a new request, a write
// that makes no progress for `write` fails, and the pool has room for many more
// connections than a browser opens.
#pragma once

#include <httplib.h>

#include "server/connection_limits.h"

namespace aiprof::server {

class BoundedHttpServer : public httplib::Server {
 public:
  explicit BoundedHttpServer(ConnectionLimits limits);
  // After a bind: lets the kernel queue `connections` not yet accepted. cpp-httplib listens
  // with a backlog of 5; past it the kernel drops the handshake's last packet, so a browser
  // opening its connections at once, or a connection among many, waits for the
  // retransmissions (1, 3, 7 s...), and a client that sends nothing is not accepted for a
  // minute.
  bool WidenBacklog(int connections);

 private:
  bool process_and_close_socket(socket_t sock) override;
  // Waits for the next request's first byte; false after `idle`, on a closed connection or
  // once the server stops.
  bool WaitForRequest(socket_t sock) const;

  ConnectionLimits limits_;
};

}  // namespace aiprof::server
