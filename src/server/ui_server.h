// The HTTP side of `aiprof ui` (cpp-httplib): serves the front-end bundle and the JSON API
// of UiApi. Every request must carry the per-launch token (query `token=`, the cookie set
// after the first request, or `Authorization: token ...`), as Jupyter does, because a GPU
// server is shared by many users; the default address is 127.0.0.1.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "server/connection_guard.h"
#include "server/ui_api.h"

namespace httplib {
class Server;
}

namespace aiprof::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;         // 0: any free port
  std::string web_dir;  // the built front end (index.html, app.js, app.css)
  std::string token;    // empty: a new random one
  ConnectionLimits limits;
};

// 32 hex digits from the system's random source.
std::string NewToken();

class UiServer {
 public:
  UiServer(const UiApi& api, ServerOptions options);
  ~UiServer();

  // Binds host:port; false with `error` set when the address is taken or invalid.
  bool Bind(std::string* error);
  int port() const { return port_; }
  const std::string& token() const { return options_.token; }
  std::string Url() const;
  // False when web_dir held no index.html (the API still works; "/" says how to build it).
  bool has_front_end() const { return static_files_.count("index.html") > 0; }
  void Run();   // serves until Stop()
  void Stop();  // safe from another thread

 private:
  struct StaticFile {
    std::string content_type;
    std::string body;
  };
  void LoadStaticFiles();
  void AddRoutes();
  void AddRequestChecks();
  void AddTimelineRoutes();
  void AddViewRoutes();
  void AddStaticRoutes();
  // Whether the request's Host header names this server: localhost, 127.0.0.1, [::1], the
  // bound address, or (bound to every address) this machine's name or the address the
  // request came in on; with this server's port when it names one.
  bool HostIsThisServer(const httplib::Request& req) const;

  const UiApi& api_;
  ServerOptions options_;
  int port_ = 0;
  std::map<std::string, StaticFile> static_files_;
  std::unique_ptr<httplib::Server> http_;
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> run_called_{false};
  std::atomic<bool> run_returned_{false};
};

}  // namespace aiprof::server
