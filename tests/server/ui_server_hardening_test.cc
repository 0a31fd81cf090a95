// The UI server against the two attacks of a local web server: DNS rebinding (a page of
// another site whose name now resolves to 127.0.0.1) and slow clients that hold its worker
// threads. No timing is asserted: the slow clients are many more than the threads, and the
// probe must simply be answered while they are connected.
#include <gtest/gtest.h>
#include <httplib.h>
#include <poll.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "ui_server_fixture.h"

namespace aiprof::server {
namespace {

TEST(AllowedHost, LoopbackNamesAndTheBoundAddressOnly) {
  for (const char* host :
       {"127.0.0.1:8737", "localhost:9000", "LOCALHOST", "127.0.0.1", "[::1]:8737"}) {
    EXPECT_TRUE(AllowedHost(host, "127.0.0.1")) << host;
  }
  for (const char* host : {"evil.example", "evil.example:8737", "127.0.0.1.evil.example",
                           "10.0.0.5:8737", "", ":8737", "[::1"}) {
    EXPECT_FALSE(AllowedHost(host, "127.0.0.1")) << host;
  }
  EXPECT_TRUE(AllowedHost("gpu7:8737", "gpu7"));         // bound to a name: that name
  EXPECT_TRUE(AllowedHost("10.0.0.5:8737", "0.0.0.0"));  // every address: any literal IP
  EXPECT_TRUE(AllowedHost("[fe80::1]:8737", "::"));
  EXPECT_FALSE(AllowedHost("evil.example:8737", "0.0.0.0"));  // never a DNS name
}

TEST_F(UiServerTest, ARequestForAnotherHostIsRefusedEvenWithTheToken) {
  httplib::Result evil = Client().Get(WithToken("/api/run"), {{"Host", "evil.example"}});
  ASSERT_TRUE(evil);
  EXPECT_EQ(evil->status, 403);
  EXPECT_NE(evil->body.find("Host"), std::string::npos);  // says why
  const std::string port = std::to_string(server_->port());
  const std::string rebound =
      RawRequest("GET /api/run?token=" + server_->token() +
                 " HTTP/1.1\r\nHost: evil.example:" + port + "\r\nConnection: close\r\n\r\n");
  EXPECT_NE(rebound.find(" 403 "), std::string::npos) << rebound;
  for (const std::string& host :
       {"localhost:" + port, "127.0.0.1:" + port, std::string("localhost:1234")}) {
    httplib::Result ok = Client().Get(WithToken("/api/run"), {{"Host", host}});
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->status, 200) << host;
  }
}

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Slow-loris clients: each sends a request's first line, then one header byte at a time,
// never ending the headers; idle clients connect and send nothing. Together many more than the
// server's threads. A normal request is still answered, and the server closes every one of them.
class SlowClientsTest : public UiServerTest {
 protected:
  void SetUp() override {
    // Short limits keep the test quick; the defaults are seconds.
    limits_.request_read = std::chrono::milliseconds(400);
    limits_.idle = std::chrono::milliseconds(400);
    limits_.threads = 4;
    UiServerTest::SetUp();
  }
};

TEST_F(SlowClientsTest, SlowAndIdleConnectionsAreClosedAndOthersAnswered) {
  constexpr int kTricklers = 10, kIdle = 10;  // 20 clients, 4 threads
  std::atomic<int> closed_by_server{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  for (int i = 0; i < kTricklers + kIdle; ++i) {
    clients.emplace_back([&, trickle = i < kTricklers] {
      const int fd = Connect(server_->port());
      ASSERT_GE(fd, 0);
      if (trickle) {
        const std::string start = "GET /api/run HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
        ASSERT_GT(send(fd, start.data(), start.size(), MSG_NOSIGNAL), 0);
      }
      // Until the server closes the connection (recv 0 or an error), a byte every 50 ms.
      while (!stop) {
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, 50) > 0) {
          char buffer[512];
          if (recv(fd, buffer, sizeof buffer, 0) <= 0) {
            ++closed_by_server;
            break;
          }
          continue;
        }
        if (trickle && send(fd, "a", 1, MSG_NOSIGNAL) < 0) {
          ++closed_by_server;
          break;
        }
      }
      close(fd);
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let them connect first
  httplib::Client probe = Client();
  probe.set_read_timeout(60, 0);  // a liveness bound, not a timing target
  httplib::Result res = probe.Get(WithToken("/api/run"));
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  // Every slow or idle client is closed by the server (without the limits the tricklers are
  // never closed: the wait is bounded only so that the test ends then).
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (closed_by_server < kTricklers + kIdle && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop = true;
  for (std::thread& client : clients) client.join();
  EXPECT_EQ(closed_by_server, kTricklers + kIdle);
}

}  // namespace
}  // namespace aiprof::server
