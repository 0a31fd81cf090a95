#include "server/connection_guard.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <vector>

namespace aiprof::server {
namespace {

// The connection the current thread serves (set by the thread ConnectionGuard started).
thread_local std::function<void(bool)>* t_note_state = nullptr;
std::atomic<uint64_t> g_timed_out{0};

constexpr auto kWatchInterval = std::chrono::milliseconds(100);

bool PortAndAddress(const sockaddr_storage& address, int* port, std::string* text) {
  char buffer[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&address);
    *port = ntohs(in->sin_port);
    if (text != nullptr) inet_ntop(AF_INET, &in->sin_addr, buffer, sizeof buffer);
  } else if (address.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&address);
    *port = ntohs(in6->sin6_port);
    if (text != nullptr) inet_ntop(AF_INET6, &in6->sin6_addr, buffer, sizeof buffer);
  } else {
    return false;
  }
  if (text != nullptr) *text = buffer;
  return true;
}

}  // namespace

ConnectionGuard::ConnectionGuard(int port, ConnectionLimits limits)
    : port_(port), limits_(limits), watchdog_([this] { Watch(); }) {}

ConnectionGuard::~ConnectionGuard() {
  shutdown();
}

uint64_t ConnectionGuard::timed_out_count() {
  return g_timed_out.load();
}

void ConnectionGuard::NoteRequestHead() {
  if (t_note_state != nullptr) (*t_note_state)(false);
}

void ConnectionGuard::NoteResponseDone() {
  if (t_note_state != nullptr) (*t_note_state)(true);
}

bool ConnectionGuard::FindNewConnection(Connection* found) {
  std::vector<Connection> candidates;
  if (DIR* fds = opendir("/proc/self/fd")) {
    while (dirent* entry = readdir(fds)) {
      if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
      int fd = std::atoi(entry->d_name);
      struct stat info {};
      if (fstat(fd, &info) != 0 || !S_ISSOCK(info.st_mode)) continue;
      sockaddr_storage local{}, peer{};
      socklen_t local_length = sizeof local, peer_length = sizeof peer;
      int local_port = 0, peer_port = 0;
      Connection connection;
      if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_length) != 0 ||
          !PortAndAddress(local, &local_port, nullptr) || local_port != port_ ||
          getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_length) != 0 ||
          !PortAndAddress(peer, &peer_port, &connection.client)) {
        continue;
      }
      connection.fd = fd;
      connection.inode = info.st_ino;
      candidates.push_back(connection);
    }
    closedir(fds);
  }
  std::lock_guard lock(mutex_);
  for (const Connection& candidate : candidates) {
    bool known = false;
    for (const Connection& connection : connections_) known |= connection.inode == candidate.inode;
    if (!known) {
      *found = candidate;
      return true;
    }
  }
  return false;
}

void ConnectionGuard::Refuse(const Connection& connection, const char* why) {
  std::string body = std::string("aiprof ui: ") + why + "; try again shortly\n";
  std::string response =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
      "Connection: close\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  ssize_t written =
      send(connection.fd, response.data(), response.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  (void)written;
  ::shutdown(connection.fd, SHUT_RDWR);
}

void ConnectionGuard::enqueue(std::function<void()> serve) {
  Connection connection;
  bool identified = FindNewConnection(&connection);
  std::unique_lock lock(mutex_);
  size_t same_client = 0;
  for (const Connection& other : connections_) same_client += other.client == connection.client;
  const char* refusal = nullptr;
  if (stopping_) {
    refusal = "the server is stopping";
  } else if (connections_.size() >= limits_.max_connections) {
    refusal = "too many connections";
  } else if (identified && same_client >= limits_.max_per_client) {
    refusal = "too many connections from this address";
  }
  if (refusal != nullptr) {
    lock.unlock();
    if (identified) Refuse(connection, refusal);
    serve();  // httplib's task: finds the connection shut and closes it
    return;
  }
  // Not identified (no /proc): served, counted, but without a deadline (fd -1).
  connection.waiting_since = std::chrono::steady_clock::now();
  auto entry = connections_.insert(connections_.end(), connection);
  lock.unlock();
  std::thread([this, entry, serve = std::move(serve)] {
    std::function<void(bool)> note = [this, entry](bool waiting) {
      std::lock_guard guard(mutex_);
      entry->waiting_for_head = waiting;
      entry->waiting_since = std::chrono::steady_clock::now();
    };
    t_note_state = &note;
    serve();
    t_note_state = nullptr;
    std::lock_guard guard(mutex_);
    connections_.erase(entry);
    changed_.notify_all();
  }).detach();
}

void ConnectionGuard::Watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    changed_.wait_for(lock, kWatchInterval);
    const auto now = std::chrono::steady_clock::now();
    for (Connection& connection : connections_) {
      if (connection.fd < 0 || !connection.waiting_for_head ||
          now - connection.waiting_since < limits_.head_deadline) {
        continue;
      }
      struct stat info {};
      // Still the same socket (its thread closes it before leaving the list).
      if (fstat(connection.fd, &info) == 0 && info.st_ino == connection.inode) {
        ::shutdown(connection.fd, SHUT_RDWR);
        g_timed_out.fetch_add(1);
      }
      connection.waiting_for_head = false;  // shut once; its thread ends and removes it
    }
  }
}

void ConnectionGuard::shutdown() {
  std::unique_lock lock(mutex_);
  if (stopping_ && !watchdog_.joinable()) return;
  stopping_ = true;
  for (const Connection& connection : connections_) {
    struct stat info {};
    if (connection.fd >= 0 && fstat(connection.fd, &info) == 0 && info.st_ino == connection.inode) {
      ::shutdown(connection.fd, SHUT_RDWR);
    }
  }
  changed_.notify_all();
  changed_.wait(lock, [this] { return connections_.empty(); });
  lock.unlock();
  if (watchdog_.joinable()) watchdog_.join();
}

}  // namespace aiprof::server
