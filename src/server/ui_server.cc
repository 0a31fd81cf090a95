#include "server/ui_server.h"

#include <httplib.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "model/ascii_case.h"

namespace aiprof::server {
namespace {

constexpr const char* kCookie = "aiprof_token";
constexpr int64_t kMaxPixels = 20000;
constexpr size_t kMaxTracksPerRequest = 100000;
constexpr size_t kMaxSearchResults = 10000;
constexpr size_t kMaxQueryRows = 10000;
constexpr int64_t kQueryTimeLimitMs = 10000;
constexpr size_t kMaxQueryText = 16 * 1024;

bool SameToken(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;  // constant time: no early exit on the first different byte
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string CookieToken(const httplib::Request& req) {
  const std::string cookies = req.get_header_value("Cookie");
  const std::string key = std::string(kCookie) + "=";
  for (size_t pos = 0; pos < cookies.size();) {
    size_t end = cookies.find(';', pos);
    if (end == std::string::npos) end = cookies.size();
    std::string_view item(cookies.data() + pos, end - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    if (item.starts_with(key)) return std::string(item.substr(key.size()));
    pos = end + 1;
  }
  return "";
}

int64_t IntParam(const httplib::Request& req, const char* name, int64_t fallback) {
  if (!req.has_param(name)) return fallback;
  const std::string text = req.get_param_value(name);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw ApiError(400, std::string("parameter ") + name + ": '" + text + "' is not an integer");
  }
  return value;
}

// A share removed, 0..1, from a percentage parameter (0..100).
double PercentParam(const httplib::Request& req, const char* name) {
  const int64_t percent = IntParam(req, name, 0);
  if (percent < 0 || percent > 100) {
    throw ApiError(400, std::string("parameter ") + name + ": a percentage 0..100");
  }
  return static_cast<double>(percent) / 100;
}

// /api/what_if?loader=1&comm=1&rank=1&op=<name>&op_pct=50&cat<N>_pct=30 (N a PathCategory).
CriticalPathApi::WhatIfQuery WhatIfParams(const httplib::Request& req) {
  CriticalPathApi::WhatIfQuery query;
  query.data_loading_free = IntParam(req, "loader", 0) != 0;
  query.communication_overlapped = IntParam(req, "comm", 0) != 0;
  query.rank_at_median = IntParam(req, "rank", 0) != 0;
  if (req.has_param("op")) query.operator_name = req.get_param_value("op");
  query.operator_speedup = PercentParam(req, "op_pct");
  for (int c = 0; c < analysis::kPathCategoryCount; ++c) {
    const std::string name = "cat" + std::to_string(c) + "_pct";
    query.category_speedup[c] = PercentParam(req, name.c_str());
  }
  return query;
}

std::vector<uint32_t> IdListParam(const httplib::Request& req, const char* name) {
  std::vector<uint32_t> ids;
  if (!req.has_param(name)) return ids;
  const std::string text = req.get_param_value(name);
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    uint32_t id = 0;
    auto [stop, ec] = std::from_chars(text.data() + pos, text.data() + end, id);
    if (ec != std::errc() || stop != text.data() + end) {
      throw ApiError(400, std::string("parameter ") + name +
                              ": expected comma-separated row numbers, got '" + text + "'");
    }
    ids.push_back(id);
    if (ids.size() > kMaxTracksPerRequest) {
      throw ApiError(400, std::string("parameter ") + name + ": too many ids in one request");
    }
    pos = end + 1;
  }
  return ids;
}

TimeWindow WindowParams(const httplib::Request& req, const UiApi& api) {
  TimeWindow window;
  window.t0 = IntParam(req, "t0", 0);
  window.t1 = IntParam(req, "t1", api.end_ns() - api.origin_ns() + 1);
  window.pixels = IntParam(req, "px", 1000);
  if (window.t1 <= window.t0) {
    throw ApiError(400, "time window: t1 (" + std::to_string(window.t1) + ") must be after t0 (" +
                            std::to_string(window.t0) + ")");
  }
  if (window.pixels < 1 || window.pixels > kMaxPixels) {
    throw ApiError(400, "parameter px: " + std::to_string(window.pixels) + " is not in 1.." +
                            std::to_string(kMaxPixels));
  }
  return window;
}

void SendJson(httplib::Response& res, std::string body) {
  res.set_content(std::move(body), "application/json");
}

// Streams a response produced piece by piece (chunked transfer encoding), so a large
// answer is never held whole in memory.
void StreamJson(httplib::Response& res, std::function<void(const JsonSink&)> produce) {
  res.set_chunked_content_provider(
      "application/json", [produce = std::move(produce)](size_t, httplib::DataSink& sink) {
        produce([&sink](std::string_view piece) { return sink.write(piece.data(), piece.size()); });
        sink.done();
        return true;
      });
}

// Answers an ApiError with its status and message, anything else with 500: handlers
// report bad input by throwing, and the library's own handling of exceptions is not used.
template <typename Handler>
httplib::Server::Handler Guarded(Handler handler) {
  return [handler](const httplib::Request& req, httplib::Response& res) {
    try {
      handler(req, res);
    } catch (const ApiError& error) {
      res.status = error.status;
      res.set_content(std::string(error.what()) + "\n", "text/plain");
    } catch (const std::exception& error) {
      res.status = 500;
      res.set_content(std::string("aiprof ui: ") + error.what() + "\n", "text/plain");
    }
  };
}

const char* ContentTypeOf(const std::string& name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".png")) return "image/png";
  if (name.ends_with(".svg")) return "image/svg+xml";
  if (name.ends_with(".map")) return "application/json";
  return "application/octet-stream";
}

bool IsWildcard(const std::string& host) {
  return host == "0.0.0.0" || host == "::" || host.empty();
}

// "[::1]" for an IPv6 address, as it appears in a Host header.
std::string HostForm(const std::string& address) {
  return address.find(':') != std::string::npos && address.front() != '[' ? "[" + address + "]"
                                                                          : address;
}

bool SafePath(const std::string& path) {
  return path.find("..") == std::string::npos && path.find('\\') == std::string::npos &&
         path.find('\0') == std::string::npos && path.find("//") == std::string::npos;
}

// cpp-httplib (Debian's build has brotli) answers a browser's "Accept-Encoding: gzip,
// deflate, br" with brotli at its highest quality, recompressing every answer: about 1 MB/s,
// which made the first page's 100 KB answers (the bundle, /api/run, /api/slices) cost
// hundreds of ms each. gzip at zlib's default level is ~50x faster and still shrinks what
// crosses an ssh tunnel, so the server takes only gzip from what the browser offers. The
// library hands the pre-routing handler a const view of the request object it owns and reads
// the header from afterwards; changing it there is the one hook it has for this.
void OfferOnlyGzip(const httplib::Request& req) {
  auto& headers = const_cast<httplib::Request&>(req).headers;
  auto found = headers.find("Accept-Encoding");
  if (found == headers.end()) return;
  const bool gzip = found->second.find("gzip") != std::string::npos;
  headers.erase("Accept-Encoding");
  if (gzip) headers.emplace("Accept-Encoding", "gzip");
}

}  // namespace

std::string NewToken() {
  std::random_device random;
  std::ostringstream out;
  for (int i = 0; i < 4; ++i) {
    char part[9];
    std::snprintf(part, sizeof part, "%08x", static_cast<unsigned>(random()));
    out << part;
  }
  return out.str();
}

UiServer::UiServer(const UiApi& api, ServerOptions options)
    : api_(api), options_(std::move(options)), http_(std::make_unique<httplib::Server>()) {
  if (options_.token.empty()) options_.token = NewToken();
  LoadStaticFiles();
  AddRoutes();
}

UiServer::~UiServer() = default;

void UiServer::LoadStaticFiles() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (options_.web_dir.empty() || !fs::is_directory(options_.web_dir, ec)) return;
  for (const fs::directory_entry& entry : fs::directory_iterator(options_.web_dir, ec)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream body;
    body << in.rdbuf();
    const std::string name = entry.path().filename().string();
    static_files_[name] = {ContentTypeOf(name), body.str()};
  }
}

bool UiServer::Bind(std::string* error) {
  if (options_.port == 0) {
    port_ = http_->bind_to_any_port(options_.host);
    if (port_ < 0) {
      *error = "cannot listen on " + options_.host + " (any port)";
      return false;
    }
    return true;
  }
  if (!http_->bind_to_port(options_.host, options_.port)) {
    *error = "cannot listen on " + options_.host + ":" + std::to_string(options_.port) +
             " (in use, or not an address of this machine); pick another with --port";
    return false;
  }
  port_ = options_.port;
  return true;
}

std::string UiServer::Url() const {
  const bool any = options_.host == "0.0.0.0" || options_.host == "::";
  return "http://" + (any ? std::string("127.0.0.1") : options_.host) + ":" +
         std::to_string(port_) + "/?token=" + options_.token;
}

void UiServer::Run() {
  run_called_ = true;
  if (!stop_requested_) http_->listen_after_bind();
  run_returned_ = true;
}

void UiServer::Stop() {
  // httplib's stop() does nothing before its accept loop runs, so repeat it until Run has
  // returned; a Run that starts after this sees stop_requested_ and returns at once.
  stop_requested_ = true;
  while (run_called_ && !run_returned_) {
    http_->stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

bool UiServer::HostIsThisServer(const httplib::Request& req) const {
  const std::string host = model::AsciiLowered(req.get_header_value("Host"));
  if (host.empty()) return false;
  // name[:port]; an IPv6 name is bracketed, so its colons are inside the brackets.
  const size_t bracket = host.rfind(']');
  const size_t colon = host.rfind(':');
  std::string name = host;
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
    name = host.substr(0, colon);
    // A port, when given, is this server's (a bare name is what a client without one sends).
    if (host.substr(colon + 1) != std::to_string(port_)) return false;
  }
  std::vector<std::string> names = {"localhost", "127.0.0.1", "[::1]"};
  if (IsWildcard(options_.host)) {
    char machine[256] = {};
    if (gethostname(machine, sizeof machine - 1) == 0)
      names.push_back(model::AsciiLowered(machine));
    if (!req.local_addr.empty()) names.push_back(model::AsciiLowered(HostForm(req.local_addr)));
  } else {
    names.push_back(model::AsciiLowered(HostForm(options_.host)));
  }
  return std::find(names.begin(), names.end(), name) != names.end();
}

void UiServer::AddRoutes() {
  AddRequestChecks();
  AddTimelineRoutes();
  AddViewRoutes();
  AddStaticRoutes();
}

// Connection limits, headers, and the checks every request passes before its route: the
// Host, no body, a safe path, the token.
void UiServer::AddRequestChecks() {
  httplib::Server& http = *http_;
  const ConnectionLimits limits = options_.limits;
  http.new_task_queue = [this, limits] { return new ConnectionGuard(port_, limits); };
  http.set_logger([](const httplib::Request&, const httplib::Response&) {
    ConnectionGuard::NoteResponseDone();
  });
  http.set_default_headers({{"Cache-Control", "no-store"},
                            {"X-Content-Type-Options", "nosniff"},
                            {"Referrer-Policy", "no-referrer"}});
  http.set_payload_max_length(64 * 1024);
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    ConnectionGuard::NoteRequestHead();
    if (!HostIsThisServer(req)) {
      res.status = 403;
      res.set_content("aiprof ui: refused: Host '" + req.get_header_value("Host") +
                          "' is not this server's address (a page under another name cannot "
                          "use it). Open the address that `aiprof ui` printed instead.\n",
                      "text/plain");
      return httplib::Server::HandlerResponse::Handled;
    }
    // Every route is a GET without a body: a body would only be read slowly.
    if (req.has_header("Content-Length") || req.has_header("Transfer-Encoding")) {
      const std::string length = req.get_header_value("Content-Length");
      if (!(length.empty() || length == "0") || req.has_header("Transfer-Encoding")) {
        res.status = 413;
        res.set_content("aiprof ui: requests carry no body here\n", "text/plain");
        return httplib::Server::HandlerResponse::Handled;
      }
    }
    if (!SafePath(req.path)) {
      res.status = 400;
      res.set_content("refused: the path '" + req.path + "' is not one this server serves\n",
                      "text/plain");
      return httplib::Server::HandlerResponse::Handled;
    }
    std::string header = req.get_header_value("Authorization");
    std::string presented = req.has_param("token")         ? req.get_param_value("token")
                            : header.starts_with("token ") ? header.substr(6)
                                                           : CookieToken(req);
    if (!SameToken(presented, options_.token)) {
      res.status = 403;
      res.set_content(
          "aiprof ui: this request has no valid token. Open the URL that `aiprof ui` printed "
          "(it ends with ?token=...).\n",
          "text/plain");
      return httplib::Server::HandlerResponse::Handled;
    }
    OfferOnlyGzip(req);
    if (req.has_param("token")) {
      res.set_header("Set-Cookie", std::string(kCookie) + "=" + options_.token +
                                       "; Path=/; HttpOnly; SameSite=Strict");
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
}

// The timeline's answers, from the model and its level-of-detail index (UiApi).
void UiServer::AddTimelineRoutes() {
  httplib::Server& http = *http_;
  http.Get("/api/run", Guarded([this](const httplib::Request&, httplib::Response& res) {
             SendJson(res, api_.Run());
           }));
  http.Get("/api/tracks", Guarded([this](const httplib::Request&, httplib::Response& res) {
             SendJson(res, api_.Tracks());
           }));
  http.Get("/api/slices", Guarded([this](const httplib::Request& req, httplib::Response& res) {
             const TimeWindow window = WindowParams(req, api_);
             std::vector<uint32_t> tracks = IdListParam(req, "tracks");
             for (uint32_t track : tracks) {
               if (track >= api_.model().tracks.size()) {
                 throw ApiError(404, "no track " + std::to_string(track));
               }
             }
             StreamJson(res, [this, window, tracks = std::move(tracks)](const JsonSink& out) {
               api_.Slices(window, tracks, out);
             });
           }));
  http.Get("/api/counters", Guarded([this](const httplib::Request& req, httplib::Response& res) {
             SendJson(res, api_.Counters(WindowParams(req, api_), IdListParam(req, "series")));
           }));
  http.Get("/api/flows", Guarded([this](const httplib::Request& req, httplib::Response& res) {
             SendJson(res, api_.Flows(WindowParams(req, api_)));
           }));
  http.Get("/api/slice", Guarded([this](const httplib::Request& req, httplib::Response& res) {
             const int64_t id = IntParam(req, "id", -1);
             if (id < 0 || id > UINT32_MAX)
               throw ApiError(400, "parameter id: a slice row is required");
             SendJson(res, api_.SliceDetails(static_cast<uint32_t>(id)));
           }));
  http.Get("/api/instant", Guarded([this](const httplib::Request& req, httplib::Response& res) {
             const int64_t id = IntParam(req, "id", -1);
             if (id < 0 || id > UINT32_MAX)
               throw ApiError(400, "parameter id: an instant row is required");
             SendJson(res, api_.InstantDetails(static_cast<uint32_t>(id)));
           }));
  http.Get("/api/range", Guarded([this](const httplib::Request& req, httplib::Response& res) {
             SendJson(res,
                      api_.RangeStatistics(WindowParams(req, api_), IdListParam(req, "tracks")));
           }));
  http.Get(
      "/api/search", Guarded([this](const httplib::Request& req, httplib::Response& res) {
        UiApi::SearchQuery query;
        query.text = req.get_param_value("q");
        if (query.text.empty())
          throw ApiError(400, "search: the parameter q (text to find) is empty");
        const int64_t limit = IntParam(req, "limit", 200);
        if (limit < 1 || limit > static_cast<int64_t>(kMaxSearchResults)) {
          throw ApiError(400, "parameter limit: not in 1.." + std::to_string(kMaxSearchResults));
        }
        const int64_t offset = IntParam(req, "offset", 0);
        if (offset < 0) throw ApiError(400, "parameter offset: must be 0 or more");
        const std::string order = req.has_param("order") ? req.get_param_value("order") : "time";
        if (order != "time" && order != "duration") {
          throw ApiError(400, "parameter order: 'time' or 'duration', not '" + order + "'");
        }
        query.limit = static_cast<size_t>(limit);
        query.offset = static_cast<size_t>(offset);
        query.exact = IntParam(req, "exact", 0) != 0;
        query.longest_first = order == "duration";
        StreamJson(res, [this, query](const JsonSink& out) { api_.Search(query, out); });
      }));
  http.Get(R"(/api/table/([a-z]+))",
           Guarded([this](const httplib::Request& req, httplib::Response& res) {
             // step: a step id of /api/run's steps; -1 (the default): every step.
             const UiApi::TableRequest request =
                 api_.CheckTableRequest(req.matches[1].str(), IntParam(req, "step", -1));
             StreamJson(res, [this, request](const JsonSink& out) { api_.Table(request, out); });
           }));
}

// The views over once-computed results, one class each (analysis, communication, CPU
// profile, advice, comparison).
void UiServer::AddViewRoutes() {
  httplib::Server& http = *http_;
  http.Get("/api/analysis", Guarded([this](const httplib::Request&, httplib::Response& res) {
             SendJson(res, api_.analysis().Summary(api_.critical_path().Result().steps.size()));
           }));
  http.Get("/api/memory", Guarded([this](const httplib::Request& req, httplib::Response& res) {
             const int64_t pixels = IntParam(req, "px", 2000);
             if (pixels < 1 || pixels > kMaxPixels)
               throw ApiError(400, "parameter px: out of range");
             SendJson(res, api_.analysis().Memory(pixels));
           }));
  http.Get("/api/dataprep", Guarded([this](const httplib::Request&, httplib::Response& res) {
             SendJson(res, api_.analysis().DataPreparation());
           }));
  http.Get("/api/overlap", Guarded([this](const httplib::Request& req, httplib::Response& res) {
             SendJson(res, api_.analysis().Overlap(WindowParams(req, api_)));
           }));
  http.Get("/api/critical_path", Guarded([this](const httplib::Request&, httplib::Response& res) {
             SendJson(res, api_.critical_path().Summary());
           }));
  http.Get("/api/critical_path/segments",
           Guarded([this](const httplib::Request& req, httplib::Response& res) {
             const int64_t step = IntParam(req, "step", 0);
             if (step < 0) throw ApiError(400, "parameter step: out of range");
             SendJson(res, api_.critical_path().Segments(static_cast<size_t>(step)));
           }));
  http.Get("/api/critical_path/lane",
           Guarded([this](const httplib::Request& req, httplib::Response& res) {
             SendJson(res, api_.critical_path().Lane(WindowParams(req, api_)));
           }));
  http.Get("/api/what_if", Guarded([this](const httplib::Request& req, httplib::Response& res) {
             SendJson(res, api_.critical_path().WhatIf(WhatIfParams(req)));
           }));
  http.Get("/api/communication", Guarded([this](const httplib::Request&, httplib::Response& res) {
             SendJson(res, api_.communication().Answer());
           }));
  http.Get("/api/cpu_profile", Guarded([this](const httplib::Request& req, httplib::Response& res) {
             const std::string kind = req.has_param("kind") ? req.get_param_value("kind") : "on";
             if (kind != "on" && kind != "off") {
               throw ApiError(400, "parameter kind: 'on' or 'off', not '" + kind + "'");
             }
             CpuProfileApi::ThreadFilter filter;
             filter.threads = IdListParam(req, "thread");
             filter.processes = IdListParam(req, "process");
             SendJson(res, api_.cpu_profile().FlameGraph(kind == "off", filter));
           }));
  http.Get("/api/cpu_threads", Guarded([this](const httplib::Request&, httplib::Response& res) {
             SendJson(res, api_.cpu_profile().Threads());
           }));
  // Read-only SQL over the run's database (query_api.cc); the text travels in the URL, so it
  // passes the same checks as every request (token, and what the pre-routing handler does).
  http.Get("/api/query", Guarded([this](const httplib::Request& req, httplib::Response& res) {
             const std::string sql = req.get_param_value("q");
             if (sql.size() > kMaxQueryText) {
               throw ApiError(400,
                              "query: longer than " + std::to_string(kMaxQueryText) + " bytes");
             }
             const int64_t limit = IntParam(req, "limit", 1000);
             if (limit < 1 || limit > static_cast<int64_t>(kMaxQueryRows)) {
               throw ApiError(400, "parameter limit: not in 1.." + std::to_string(kMaxQueryRows));
             }
             SendJson(res, api_.query().Answer(sql, static_cast<size_t>(limit), kQueryTimeLimitMs));
           }));
  http.Get("/api/query_schema", Guarded([this](const httplib::Request&, httplib::Response& res) {
             SendJson(res, api_.query().Schema());
           }));
  http.Get("/api/advice", Guarded([this](const httplib::Request&, httplib::Response& res) {
             SendJson(res, api_.advice().Answer());
           }));
  http.Get("/api/compare", Guarded([this](const httplib::Request&, httplib::Response& res) {
             SendJson(res, api_.comparison().Answer());
           }));
}

// Unknown API routes, then the front end's files.
void UiServer::AddStaticRoutes() {
  httplib::Server& http = *http_;
  http.Get(R"(/api/.*)", Guarded([](const httplib::Request& req, httplib::Response&) {
             throw ApiError(404, "no API route " + req.path);
           }));
  http.Get(
      R"(/([A-Za-z0-9_.-]*))", Guarded([this](const httplib::Request& req, httplib::Response& res) {
        std::string name = req.matches[1];
        if (name.empty()) name = "index.html";
        auto found = static_files_.find(name);
        if (found == static_files_.end()) {
          if (name == "index.html") {
            res.set_content(
                "<!doctype html><title>aiprof ui</title><p>The aiprof front end was not built "
                "(it needs node and npm: run <code>make deps build</code>). The JSON API answers "
                "under <code>/api/</code>.</p>",
                "text/html; charset=utf-8");
            return;
          }
          res.status = 404;
          res.set_content("not found: " + req.path + "\n", "text/plain");
          return;
        }
        res.set_content(found->second.body, found->second.content_type);
      }));
}

}  // namespace aiprof::server
