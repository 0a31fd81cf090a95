// The UI server against hostile pages and clients: a DNS-rebinding page (its own name in
// Host, with the token) is refused; twenty clients that trickle their request heads freeze
// nothing and are cut off at the head deadline.
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "ui_server_fixture.h"

namespace aiprof::server {
namespace {

class UiServerHardeningTest : public UiServerFixture {
 protected:
  void Start(ConnectionLimits limits = {}) {
    ServerOptions options;
    options.limits = limits;
    StartServer(options);
  }
  std::string Get(const std::string& host) const {
    return RawRequest("GET /api/run?token=" + server_->token() + " HTTP/1.1\r\nHost: " + host +
                      "\r\nConnection: close\r\n\r\n");
  }
};

TEST_F(UiServerHardeningTest, AnotherHostIsRefusedEvenWithTheToken) {
  Start();
  const std::string port = std::to_string(server_->port());
  for (const std::string& host :
       std::vector<std::string>{"evil.example", "evil.example:" + port, "127.0.0.1.evil.example",
                                "localhost.evil.example:" + port, "127.0.0.1:1"}) {
    EXPECT_NE(Get(host).find(" 403 "), std::string::npos) << host;
  }
  EXPECT_NE(RawRequest("GET /api/run?token=" + server_->token() +
                       " HTTP/1.1\r\nConnection: close\r\n\r\n")
                .find(" 403 "),
            std::string::npos)
      << "no Host";
  for (const std::string& host :
       std::vector<std::string>{"127.0.0.1:" + port, "localhost:" + port, "LocalHost:" + port,
                                "[::1]:" + port, "127.0.0.1"}) {
    EXPECT_NE(Get(host).find(" 200 "), std::string::npos) << host;
  }
}

TEST_F(UiServerHardeningTest, RequestsWithABodyAreRefused) {
  Start();
  EXPECT_NE(RawRequest("GET /api/run?token=" + server_->token() +
                       " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nConnection: "
                       "close\r\n\r\nhello")
                .find(" 413 "),
            std::string::npos);
}

// Twenty connections send their heads a byte every 100 ms. Requests made meanwhile are
// answered (cpp-httplib's ten-thread pool froze on them before), and the trickling
// connections are cut off once the head deadline passes.
TEST_F(UiServerHardeningTest, TwentySlowClientsFreezeNothingAndAreCutOff) {
  ConnectionLimits limits;
  limits.head_deadline = std::chrono::milliseconds(1500);
  Start(limits);
  const uint64_t timed_out_before = ConnectionGuard::timed_out_count();
  std::atomic<bool> stop{false};
  std::atomic<int> cut_off{0};
  std::vector<std::thread> slow;
  for (int client = 0; client < 20; ++client) {
    slow.emplace_back([&] {
      int fd = ConnectRaw();
      const std::string head = "GET /api/run HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
      // Bounded, so a server that never cuts them off fails the test instead of hanging it.
      for (size_t sent = 0; !stop && sent < 600; ++sent) {
        char byte = sent < head.size() ? head[sent] : 'a';
        if (send(fd, &byte, 1, MSG_NOSIGNAL) != 1) {
          ++cut_off;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      close(fd);
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // all twenty are trickling
  for (int probe = 0; probe < 10; ++probe) {
    httplib::Client client("127.0.0.1", server_->port());
    client.set_read_timeout(20, 0);
    httplib::Result res = client.Get("/api/run?token=" + server_->token());
    ASSERT_TRUE(res) << "probe " << probe << " got no answer";
    EXPECT_EQ(res->status, 200);
  }
  for (std::thread& thread : slow) thread.join();
  stop = true;
  EXPECT_EQ(cut_off.load(), 20);
  EXPECT_GE(ConnectionGuard::timed_out_count() - timed_out_before, 20u);
}

}  // namespace
}  // namespace aiprof::server
