// The UI server over the golden data set (tests/support/golden_data.h), spoken to over real
// HTTP on 127.0.0.1: the fixture shared by the server's tests.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "dynamic/temp_dir.h"
#include "model/parser.h"
#include "server/ui_server.h"
#include "support/golden_data.h"

namespace aiprof::server {

// Starts the server on demand (a test that sets connection limits starts it itself).
class UiServerFixture : public ::testing::Test {
 protected:
  void StartServer(ServerOptions options = {}) {
    const std::string prof = testing::WriteGoldenProfDir(dir_.path());
    api_ = std::make_unique<UiApi>(model::ParseProfDir(prof), std::vector<std::string>{prof});
    web_ = dir_.path() + "/web";
    std::filesystem::create_directories(web_);
    std::ofstream(web_ + "/index.html") << "<!doctype html><title>aiprof</title>";
    std::ofstream(web_ + "/app.js") << "console.log('aiprof')";
    options.web_dir = web_;
    server_ = std::make_unique<UiServer>(*api_, options);
    std::string error;
    ASSERT_TRUE(server_->Bind(&error)) << error;
    thread_ = std::thread([this] { server_->Run(); });
  }
  void TearDown() override {
    if (server_ == nullptr) return;
    server_->Stop();
    thread_.join();
  }

  httplib::Client Client() const { return httplib::Client("127.0.0.1", server_->port()); }
  std::string WithToken(const std::string& path) const {
    return path + (path.find('?') == std::string::npos ? "?" : "&") + "token=" + server_->token();
  }
  httplib::Result Get(const std::string& path) const { return Client().Get(WithToken(path)); }
  nlohmann::json GetJson(const std::string& path) const {
    httplib::Result res = Get(path);
    EXPECT_TRUE(res);
    if (!res) return {};
    EXPECT_EQ(res->status, 200) << path << ": " << res->body;
    return nlohmann::json::parse(res->body);
  }
  // A plain TCP connection to the server, for requests no HTTP client would send.
  int ConnectRaw() const {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(server_->port()));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    return fd;
  }
  // Sends `request` as raw bytes and returns the status line.
  std::string RawRequest(const std::string& request) const {
    int fd = ConnectRaw();
    EXPECT_EQ(write(fd, request.data(), request.size()), static_cast<ssize_t>(request.size()));
    char buffer[256] = {};
    ssize_t got = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    std::string reply(buffer, got > 0 ? static_cast<size_t>(got) : 0);
    return reply.substr(0, reply.find("\r\n"));
  }

  testing::TempDir dir_;
  std::string web_;
  std::unique_ptr<UiApi> api_;
  std::unique_ptr<UiServer> server_;
  std::thread thread_;
};

// The server started with the default options before each test.
class UiServerTest : public UiServerFixture {
 protected:
  void SetUp() override { StartServer(); }
};

}  // namespace aiprof::server
