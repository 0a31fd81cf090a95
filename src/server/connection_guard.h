// What keeps slow or idle clients from freezing `aiprof ui`. cpp-httplib serves each
// connection on a thread of a fixed pool and times out each read separately, so a client that
// trickles its request head a byte at a time holds a thread for as long as it likes, and ten
// such clients stopped every other request. ConnectionGuard is the server's task queue:
//  - each connection gets its own thread, up to `max_connections` in all and
//    `max_per_client` per client address; a connection over either is answered 503 and
//    closed at once;
//  - a watchdog shuts down every connection whose request head has not arrived within
//    `head_deadline` of its opening or of its previous response (slow heads and idle
//    keep-alive connections alike), which ends its thread.
// The server tells it when a head has arrived (NoteRequestHead, from the pre-routing
// handler) and when a response is written (NoteResponseDone, from the logger); both run on
// the connection's own thread.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <thread>

namespace aiprof::server {

struct ConnectionLimits {
  size_t max_connections = 128;
  size_t max_per_client = 64;
  std::chrono::milliseconds head_deadline{10000};
};

class ConnectionGuard : public httplib::TaskQueue {
 public:
  // `port`: the server's, to recognise its connections among the process's descriptors.
  ConnectionGuard(int port, ConnectionLimits limits);
  ~ConnectionGuard() override;

  void enqueue(std::function<void()> connection) override;
  void shutdown() override;

  static void NoteRequestHead();
  static void NoteResponseDone();

  // Connections closed by the watchdog so far (tests, the server's log).
  static uint64_t timed_out_count();

 private:
  struct Connection {
    int fd = -1;
    uint64_t inode = 0;
    std::string client;  // peer address
    bool waiting_for_head = true;
    std::chrono::steady_clock::time_point waiting_since;
  };
  // The socket the listener just accepted: the one connection to the server's port among
  // the process's descriptors that is not registered yet (httplib hands over only a task).
  bool FindNewConnection(Connection* found);
  void Watch();
  void Refuse(const Connection& connection, const char* why);

  const int port_;
  const ConnectionLimits limits_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::list<Connection> connections_;
  bool stopping_ = false;
  std::thread watchdog_;
};

}  // namespace aiprof::server
