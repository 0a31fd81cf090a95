// `aiprof ui [PROF dirs | a parent dir] [--port N] [--host 127.0.0.1] [--no-browser]`: loads
// the model once and serves the local web UI (src/server, web/) until interrupted.
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/command.h"
#include "export/read_problems.h"
#include "model/discovery.h"
#include "model/parser.h"
#include "server/ui_server.h"

extern char** environ;

namespace aiprof::cli {
namespace {

struct UiOptions {
  std::vector<std::string> paths;
  std::string host = "127.0.0.1";
  int port = 8737;
  bool no_browser = false;
  std::string web_dir;
  std::string compare;  // a base run: the Compare view compares `paths` with it
};

// The bundle built by CMake (build/web, beside build/bin) or an installed share/aiprof/web.
std::string FindWebDir(const std::string& given) {
  namespace fs = std::filesystem;
  if (!given.empty()) return given;
  if (const char* env = std::getenv("AIPROF_WEB_DIR")) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  for (const fs::path& candidate : {exe.parent_path().parent_path() / "web",
                                    exe.parent_path().parent_path() / "share/aiprof/web"}) {
    if (fs::exists(candidate / "index.html", ec)) return candidate.string();
  }
  return "";
}

bool IsLoopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1";
}

void OpenBrowser(const std::string& url) {
  if (std::getenv("DISPLAY") == nullptr && std::getenv("WAYLAND_DISPLAY") == nullptr) return;
  pid_t pid = 0;
  char* const argv[] = {const_cast<char*>("xdg-open"), const_cast<char*>(url.c_str()), nullptr};
  if (posix_spawnp(&pid, "xdg-open", nullptr, nullptr, argv, environ) != 0) {
    std::cerr << "aiprof ui: could not start xdg-open; open the URL above by hand\n";
  }
}

// The runs under `paths` (PROF_* directories, Kineto traces, folders of them) and their
// files, all shown as one model; false, having said why, when there are none.
bool FindRun(const std::vector<std::string>& paths, const char* what,
             std::vector<std::string>* prof_dirs, std::vector<std::string>* files) {
  const model::InputDiscovery found = model::DiscoverRuns(paths);
  for (const std::string& note : found.notes)
    std::cerr << "aiprof ui: " << what << ": " << note << "\n";
  if (found.runs.empty()) {
    std::cerr << "aiprof ui: " << what << ": " << found.error
              << "\naiprof ui: give PROF_* directories, Kineto traces or a directory holding them "
                 "(the --output of the profiled run)\n";
    return false;
  }
  for (const model::RunInput& run : found.runs) {
    prof_dirs->push_back(run.path);
    files->insert(files->end(), run.files.begin(), run.files.end());
  }
  if (files->empty()) {
    std::cerr << "aiprof ui: " << what << ": no raw data (host/data/*.data) in "
              << prof_dirs->front() << (prof_dirs->size() > 1 ? " and the others" : "")
              << "; was the run profiled with aiprof?\n";
    return false;
  }
  if (found.runs.size() > 1) {
    std::cerr << "aiprof ui: " << what << ": " << found.runs.size()
              << " runs shown together in one timeline\n";
  }
  return true;
}

int RunUi(const UiOptions& options) {
  std::vector<std::string> prof_dirs, files, base_dirs, base_files;
  if (!FindRun(options.paths, "the run", &prof_dirs, &files)) return kExitUsage;
  if (!options.compare.empty() &&
      !FindRun({options.compare}, "--compare", &base_dirs, &base_files)) {
    return kExitUsage;
  }
  const auto started = std::chrono::steady_clock::now();
  model::ParseOptions parse;
  parse.threads = std::max(1u, std::thread::hardware_concurrency());
  server::UiApi api(model::ParseFiles(files, parse), prof_dirs);
  if (!base_files.empty()) api.SetComparisonBase(model::ParseFiles(base_files, parse), base_dirs);
  const double load_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // From here on (the analyses, the advice, the comparison), every block of 1 MiB or more is
  // mapped and unmapped on its own instead of coming from malloc's heap, whose threshold
  // otherwise rises to 32 MiB after the first large free: the analyses' scratch then goes
  // back to the system when they are done with it instead of staying in their thread's heap,
  // so the server's peak is the live data's (docs/PERFORMANCE.md "Web UI", memory). Not
  // during the parse: its chunk buffers, reused through the heap, would each be mapped and
  // faulted in again (the load took about twice as long). What the parse freed goes back too.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  // The server's threads (the requests', the analyses') share two heaps instead of one each
  // (glibc makes up to eight a core): the blocks a request frees are reused by the next on
  // any thread instead of staying in its own thread's heap (10 M-range run, the browser bench:
  // 11 MiB resident over 8 heaps, 3 MiB less with two).
  mallopt(M_ARENA_MAX, 2);
  malloc_trim(0);

  server::ServerOptions server_options;
  server_options.host = options.host;
  server_options.port = options.port;
  server_options.web_dir = FindWebDir(options.web_dir);
  server::UiServer server(api, server_options);
  std::string error;
  if (!server.Bind(&error)) {
    std::cerr << "aiprof ui: " << error << "\n";
    return kExitUsage;
  }
  if (!server.has_front_end()) {
    std::cerr << "aiprof ui: the web front end was not found (looked in "
              << (server_options.web_dir.empty() ? "build/web, share/aiprof/web"
                                                 : server_options.web_dir)
              << "; build it with node/npm: make deps build, or set AIPROF_WEB_DIR); only the "
                 "JSON API is served\n";
  }
  if (!IsLoopback(options.host)) {
    std::cerr << "aiprof ui: listening on " << options.host
              << ", reachable from other machines; the token is the only protection\n";
  }
  const model::Model& m = api.model();
  // A corrupt or truncated file still loads what is intact; say what was not.
  exporter::ReportReadProblems(m, "aiprof ui", std::cerr);
  std::cout << "aiprof ui: loaded " << prof_dirs.size() << " run(s), " << m.slices.size()
            << " slices, " << m.counters.size() << " counter samples in " << load_s << " s\n";
  if (!base_dirs.empty()) {
    std::cout << "aiprof ui: the Compare view compares this run with " << base_dirs.size()
              << " base PROF_* dir(s) from " << options.compare << "\n";
  }
  std::cout << "aiprof ui: serving " << server.Url() << "\n"
            << "aiprof ui: on a remote machine: ssh -L " << server.port()
            << ":127.0.0.1:" << server.port()
            << " <host>, then open that URL locally; Ctrl-C stops\n"
            << std::flush;
  if (!options.no_browser) OpenBrowser(server.Url());
  // The analyses walk every slice (seconds on a 10 M-event run); start them now, so that the
  // overview's results are ready soon, at nice 19 (Linux threads have their own nice value):
  // they yield to the requests of the first page. A browser started from another session is
  // in another autogroup, where a nice value does not count; SCHED_IDLE would yield to it at
  // once, but bench_ui measured no faster frames with it, only slower analyses
  // (docs/PERFORMANCE.md, Web UI).
  std::thread warm([&api] {
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 19);
    api.analysis().Analyses();
    api.advice().Answer();
    api.comparison().Answer();
  });

  // SIGINT/SIGTERM stop the server from a thread of ours (stopping is not signal-safe).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::thread waiter([&server, stop_signals] {
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    server.Stop();
  });
  server.Run();
  pthread_kill(waiter.native_handle(), SIGTERM);  // when Run ended for another reason
  waiter.join();
  warm.join();
  return kExitOk;
}

}  // namespace

void AddUiCommand(CLI::App& app) {
  auto options = std::make_shared<UiOptions>();
  CLI::App* sub = app.add_subcommand(
      "ui", "Serve the local web UI (overview, timeline, operators, resources) for PROF_* data");
  sub->add_option("paths", options->paths, "PROF_* directories or a directory holding them")
      ->required();
  sub->add_option("--port", options->port, "TCP port (0: any free port)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  sub->add_option("--host", options->host,
                  "address to listen on; keep 127.0.0.1 and use ssh -L on shared servers")
      ->capture_default_str();
  sub->add_flag("--no-browser", options->no_browser, "do not open a browser");
  sub->add_option("--compare", options->compare,
                  "a base run (PROF_* dir or its parent): the Compare view shows what changed "
                  "from it, as aiprof compare does");
  sub->add_option("--web-dir", options->web_dir,
                  "the built front end (default: build/web beside the binary, or AIPROF_WEB_DIR)");
  sub->callback([options] {
    int code = RunUi(*options);
    if (code != kExitOk) throw CLI::RuntimeError(code);
  });
}

}  // namespace aiprof::cli
