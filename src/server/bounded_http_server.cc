#include "server/bounded_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

namespace aiprof::server {
namespace {

using Clock = std::chrono::steady_clock;

int PollMs(Clock::duration remaining) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(remaining).count();
  return static_cast<int>(std::clamp<int64_t>(ms, 0, 60'000));
}

// Waits until `sock` has `events` or `deadline` passes; false on the deadline or an error.
bool WaitFor(int sock, short events, Clock::time_point deadline) {
  for (;;) {
    const Clock::duration remaining = deadline - Clock::now();
    if (remaining <= Clock::duration::zero()) return false;
    pollfd fd{sock, events, 0};
    const int ready = ::poll(&fd, 1, PollMs(remaining));
    if (ready > 0) return true;  // readable, writable, or an error the next call reports
    if (ready < 0 && errno != EINTR) return false;
  }
}

std::pair<std::string, int> Address(const sockaddr_storage& address) {
  char text[INET6_ADDRSTRLEN] = "";
  if (address.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    ::inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    return {text, ntohs(v4.sin_port)};
  }
  if (address.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
    ::inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
    return {text, ntohs(v6.sin6_port)};
  }
  return {"", 0};
}

// A connection whose reads stop at the current request's deadline.
class DeadlineStream : public httplib::Stream {
 public:
  DeadlineStream(int sock, const ConnectionLimits& limits) : sock_(sock), limits_(limits) {}

  void StartRequest() { read_deadline_ = Clock::now() + limits_.request_read; }
  // Whether a read of the current request ran past its deadline.
  bool late() const { return late_; }

  bool is_readable() const override {
    if (WaitFor(sock_, POLLIN, read_deadline_)) return true;
    late_ = true;
    return false;
  }
  bool is_writable() const override {
    return WaitFor(sock_, POLLOUT, Clock::now() + limits_.write);
  }
  ssize_t read(char* ptr, size_t size) override {
    if (!is_readable()) return -1;
    ssize_t n;
    do n = ::recv(sock_, ptr, size, 0);
    while (n < 0 && errno == EINTR);
    return n;
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (::getpeername(sock_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      std::tie(ip, port) = Address(address);
    }
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (::getsockname(sock_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      std::tie(ip, port) = Address(address);
    }
  }
  socket_t socket() const override { return sock_; }

 private:
  int sock_;
  const ConnectionLimits& limits_;
  Clock::time_point read_deadline_ = Clock::now();
  mutable bool late_ = false;
};

}  // namespace

BoundedHttpServer::BoundedHttpServer(ConnectionLimits limits) : limits_(limits) {
  new_task_queue = [threads = limits_.threads] { return new httplib::ThreadPool(threads); };
}

bool BoundedHttpServer::WidenBacklog(int connections) {
  const socket_t sock = svr_sock_;
  return sock != INVALID_SOCKET && ::listen(sock, connections) == 0;  // Linux: a new backlog
}

bool BoundedHttpServer::WaitForRequest(socket_t sock) const {
  // In slices, so that a stopped server does not wait for its idle connections.
  constexpr auto kSlice = std::chrono::milliseconds(100);
  const Clock::time_point deadline = Clock::now() + limits_.idle;
  while (svr_sock_ != INVALID_SOCKET) {
    const Clock::time_point now = Clock::now();
    if (now >= deadline) return false;
    pollfd fd{sock, POLLIN, 0};
    const int ready = ::poll(&fd, 1, PollMs(std::min<Clock::duration>(deadline - now, kSlice)));
    if (ready > 0) {
      char byte;  // readable with nothing to read: the client closed it
      return ::recv(sock, &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
    }
    if (ready < 0 && errno != EINTR) return false;
  }
  return false;
}

bool BoundedHttpServer::process_and_close_socket(socket_t sock) {
  DeadlineStream stream(sock, limits_);
  bool served = false;
  for (size_t left = keep_alive_max_count_; left > 0 && WaitForRequest(sock); --left) {
    stream.StartRequest();
    bool closed = false;
    served = process_request(stream, left == 1, closed, [&](httplib::Request& req) {
      stream.get_remote_ip_and_port(req.remote_addr, req.remote_port);
    });
    if (!served || closed || stream.late()) break;  // a late request ends the connection
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return served;
}

}  // namespace aiprof::server
