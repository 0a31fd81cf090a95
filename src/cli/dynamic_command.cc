// `aiprof dynamic` (msprof `--dynamic=on`): start and stop collection at will.
//   aiprof --dynamic=on [options] <app> [args]    launch mode: run the app, then a prompt
//   aiprof --dynamic=on --pid=<pid>[,<pid>...]     attach mode: control running jobs
//   aiprof --dynamic=on --list                     jobs that can be attached
// The prompt takes start [options], stop, status, quit and help; each start..stop pair
// writes one PROF_* directory. The jobs serve src/runtime/dynamic/protocol.h.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "cli/collect_options.h"
#include "cli/command.h"
#include "cli/dynamic_client.h"
#include "cli/launcher.h"
#include "cli/line_reader.h"
#include "runtime/dynamic/protocol.h"

namespace aiprof::cli {
namespace {

constexpr auto kDefaultIdleTimeout = std::chrono::minutes(30);
constexpr auto kSocketWait = std::chrono::seconds(30);

struct DynamicArgs {
  CollectArgs collect;
  std::string pids;
  bool list = false;
};

const char* kPromptHelp =
    "commands:\n"
    "  start [options]  start collecting; options override the job's for this window, as\n"
    "                   key=value words (start task_time=l2 msproftx=on) or a JSON object\n"
    "  stop             stop collecting and write the PROF_* directory\n"
    "  status           whether the job is collecting, and where\n"
    "  quit             stop collecting and leave; the job keeps running\n"
    "  help             this text\n";

// The wait for a first start: AIPROF_DYNAMIC_IDLE_TIMEOUT_S shortens it (tests).
std::chrono::steady_clock::duration IdleTimeout() {
  if (const char* seconds = std::getenv("AIPROF_DYNAMIC_IDLE_TIMEOUT_S");
      seconds != nullptr && *seconds) {
    return std::chrono::seconds(std::max(1, std::atoi(seconds)));
  }
  return kDefaultIdleTimeout;
}

pid_t ParentOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(text.substr(paren + 2));
  std::string state;
  pid_t parent = 0;
  fields >> state >> parent;
  return parent;
}

bool IsDescendantOf(pid_t pid, pid_t ancestor) {
  for (int depth = 0; depth < 64 && pid > 1; ++depth) {
    pid = ParentOf(pid);
    if (pid == ancestor) return true;
  }
  return false;
}

struct Target {
  pid_t pid;
  ControlConnection connection;
};

class Prompt {
 public:
  explicit Prompt(bool launch_mode) : launch_mode_(launch_mode) {}

  bool Connect(pid_t pid) {
    Target target{pid, ControlConnection()};
    std::string error;
    std::string path = FindJobSocket(pid, error);
    if (path.empty() || !target.connection.Connect(path, error)) {
      std::cerr << "[aiprof] pid " << pid << ": " << error << "\n";
      return false;
    }
    std::cout << "[aiprof] attached to pid " << pid << " ("
              << dynamic::FieldValue(target.connection.greeting(), "state") << ")\n";
    connected_.insert(pid);
    targets_.push_back(std::move(target));
    return true;
  }

  // Launch mode: attach to every process of the app that has opened a control socket. Each
  // is connected to once, without a probe first: a probe connection would be the job's
  // controller until the job noticed it closed, and the launcher would be told it is busy,
  // controlled by itself.
  void ConnectNewDescendants() {
    for (pid_t pid : JobsWithSockets()) {
      if (!connected_.contains(pid) && IsDescendantOf(pid, getpid())) Connect(pid);
    }
  }

  // Waits for the app's control socket as long as the app runs (the launcher exits with the
  // app), saying once when that takes long. Lines typed meanwhile stay in the input, in
  // order, for Run().
  void WaitForApp() {
    auto note_at = std::chrono::steady_clock::now() + kSocketWait;
    bool noted = false;
    while (targets_.empty()) {
      ConnectNewDescendants();
      if (!targets_.empty()) break;
      if (!noted && std::chrono::steady_clock::now() >= note_at) {
        std::cerr << "[aiprof] the app has opened no control socket yet (libaiprof.so may not "
                     "be preloaded into it: a statically linked program cannot be controlled); "
                     "commands wait until it does\n";
        noted = true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  // Runs until quit, end of input, the idle timeout or the loss of every job.
  void Run() {
    LineReader reader;
    auto idle_deadline = std::chrono::steady_clock::now() + IdleTimeout();
    while (!targets_.empty()) {
      std::string line;
      ReadStatus status = reader.ReadLine("> ", idle_deadline, line);
      if (status == ReadStatus::kTimeout) {
        std::cout << "\n[aiprof] no start for "
                  << std::chrono::duration_cast<std::chrono::seconds>(IdleTimeout()).count()
                  << " s: leaving interactive mode; the job keeps running. " << AttachHint()
                  << "\n";
        SendToAll("quit");
        return;
      }
      if (status == ReadStatus::kEndOfInput) {
        std::cout << "[aiprof] end of input: leaving interactive mode; the job keeps running. "
                  << AttachHint() << "\n";
        SendToAll("quit");
        return;
      }
      std::string command = line.substr(0, line.find_first_of(" \t"));
      if (command.empty()) continue;
      if (command == "help") {
        std::cout << kPromptHelp;
        continue;
      }
      if (command != "start" && command != "stop" && command != "status" && command != "quit") {
        std::cout << "unknown command '" << command << "'\n" << kPromptHelp;
        continue;
      }
      if (launch_mode_) ConnectNewDescendants();
      if (command == "start") {
        idle_deadline = std::chrono::steady_clock::now() + IdleTimeout();
        if (line.find_first_not_of(" \t", 5) == std::string::npos &&
            !default_start_options_.empty()) {
          line = "start " + default_start_options_;
        }
      }
      SendToAll(line);
      if (command == "quit") {
        if (launch_mode_) std::cout << "[aiprof] the app keeps running; " << AttachHint() << "\n";
        return;
      }
    }
    std::cout << "[aiprof] no job left to control\n";
  }

  std::string AttachHint() const {
    std::string pids;
    for (pid_t pid : connected_) pids += (pids.empty() ? "" : ",") + std::to_string(pid);
    return "Attach again with: aiprof --dynamic=on --pid=" + pids;
  }

  size_t target_count() const { return targets_.size(); }
  void set_default_start_options(std::string options) {
    default_start_options_ = std::move(options);
  }

 private:
  void SendToAll(const std::string& line) {
    bool quit = line == "quit";
    for (auto it = targets_.begin(); it != targets_.end();) {
      std::string reply = it->connection.Send(line);
      std::string prefix = targets_.size() > 1 || connected_.size() > 1
                               ? "[pid " + std::to_string(it->pid) + "] "
                               : "";
      if (!reply.empty()) std::cout << prefix << reply << "\n";
      if (it->connection.closed()) {
        if (!quit) std::cout << prefix << "[aiprof] the job closed the connection\n";
        it = targets_.erase(it);
      } else {
        ++it;
      }
    }
    std::cout.flush();
  }

  bool launch_mode_;
  std::string default_start_options_;
  std::vector<Target> targets_;
  std::set<pid_t> connected_;
};

int ListJobs() {
  std::vector<std::string> removed;
  std::vector<AttachableJob> jobs = ListAttachableJobs(removed);
  for (const std::string& path : removed)
    std::cout << "removed stale socket " << path << " (its job is gone)\n";
  if (jobs.empty()) {
    std::cout << "no attachable jobs in " << dynamic::SocketDirectory()
              << " (start one with AIPROF_MODE=dynamic, or with aiprof --dynamic=on <app>)\n";
    return kExitOk;
  }
  std::printf("%-8s  %-19s  %-32s  %s\n", "PID", "SINCE", "STATE", "COMMAND");
  for (const AttachableJob& job : jobs) {
    std::printf("%-8d  %-19s  %-32s  %s\n", static_cast<int>(job.pid), job.since.c_str(),
                job.state.c_str(), job.command.c_str());
  }
  return kExitOk;
}

bool ParsePids(const std::string& text, std::vector<pid_t>& pids, std::string& error) {
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    char* end = nullptr;
    long value = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || value <= 0 || value > 4194304) {
      error = "--pid=" + text + ": '" + item + "' is not a process id; give --pid=<pid>[,<pid>...]";
      return false;
    }
    pids.push_back(static_cast<pid_t>(value));
  }
  if (pids.empty()) error = "--pid: no process id given";
  return !pids.empty();
}

// Options given on the command line become the options of every `start` in attach mode.
std::string AttachStartOptions(const DynamicArgs& args) {
  std::set<std::string> explicit_options(args.collect.explicit_options.begin(),
                                         args.collect.explicit_options.end());
  explicit_options.erase("pid");
  explicit_options.erase("list");
  if (explicit_options.empty()) return "";
  CollectArgs resolved_args = args.collect;
  resolved_args.app = {"attached-job"};
  CollectConfig config;
  std::string error;
  if (!ResolveCollectArgs(resolved_args, DetectMachine(), &config, &error)) {
    std::cerr << "aiprof dynamic: " << error << "\n";
    throw CLI::RuntimeError(kExitUsage);
  }
  nlohmann::json options = RuntimeOptionsJson(config, 0);
  // What the job fixed when it started, or what a window does not take (session controller).
  for (const char* key : {"mode", "app", "launch_realtime_ns", "launcher_pid", "delay_s",
                          "duration_s", "follow_children"}) {
    options.erase(key);
  }
  return options.dump();
}

int Attach(const DynamicArgs& args) {
  std::vector<pid_t> pids;
  std::string error;
  if (!ParsePids(args.pids, pids, error)) {
    std::cerr << "aiprof dynamic: " << error << "\n";
    return kExitUsage;
  }
  std::string start_options = AttachStartOptions(args);
  Prompt prompt(false);
  for (pid_t pid : pids) {
    if (!dynamic::IsProcessAlive(pid)) {
      std::cerr << "[aiprof] pid " << pid << ": no such process\n";
      continue;
    }
    prompt.Connect(pid);
  }
  if (prompt.target_count() == 0) {
    std::cerr << "[aiprof] no job to control; jobs must run with AIPROF_MODE=dynamic (see aiprof "
                 "--dynamic=on "
                 "--list)\n";
    return kExitFailure;
  }
  if (!start_options.empty()) {
    std::cout << "[aiprof] start without options uses the command line's: " << start_options
              << "\n";
    prompt.set_default_start_options(start_options);
  }
  prompt.Run();
  return kExitOk;
}

int Launch(DynamicArgs& args) {
  CollectConfig config;
  std::string error;
  if (!ResolveCollectArgs(args.collect, DetectMachine(), &config, &error)) {
    std::cerr << "aiprof dynamic: " << error << "\n";
    return kExitUsage;
  }
  config.runtime_mode = "dynamic";
  // The launcher's mode and options win over any the app's environment brings.
  for (const char* name : {"AIPROF_MODE", "AIPROF_OPTIONS"}) {
    if (std::getenv(name) != nullptr) {
      std::cerr << "[aiprof] note: " << name << " from the environment is ignored in launch mode\n";
    }
  }
  std::erase_if(config.environment, [](const std::string& entry) {
    bool ours = entry.starts_with("AIPROF_MODE=") || entry.starts_with("AIPROF_OPTIONS=");
    if (ours)
      std::cerr << "[aiprof] note: --environment " << entry.substr(0, entry.find('='))
                << " is ignored\n";
    return ours;
  });
  config.environment.push_back("AIPROF_MODE=dynamic");

  // A launcher in the background cannot read the terminal: the job runs, attach mode controls it.
  bool background_terminal = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) != getpgrp();
  auto prompt = std::make_shared<Prompt>(true);
  if (background_terminal) {
    std::cerr
        << "[aiprof] running in the background: no interactive prompt. Use attach mode: aiprof "
           "--dynamic=on --list, then aiprof --dynamic=on --pid=<pid>\n";
  } else {
    std::thread([prompt] {
      prompt->WaitForApp();
      std::cout << "[aiprof] type help for commands\n";
      prompt->Run();
    }).detach();
  }
  int code = RunCollection(config);
  RestoreTerminal();
  return code;
}

}  // namespace

void AddDynamicCommand(CLI::App& app) {
  auto args = std::make_shared<DynamicArgs>();
  CLI::App* dynamic = app.add_subcommand("dynamic",
                                         "Start and stop collection at will (msprof --dynamic=on): "
                                         "aiprof dynamic [options] <app> [args] "
                                         "(launch), --pid=<pid>[,<pid>...] (attach), --list");
  dynamic->prefix_command();
  AddCollectOptions(dynamic, &args->collect);
  dynamic
      ->add_option("--pid", args->pids, "Attach to running jobs (started with AIPROF_MODE=dynamic)")
      ->group("Dynamic");
  dynamic
      ->add_flag("--list", args->list, "List jobs that can be attached (and remove stale sockets)")
      ->group("Dynamic");
  dynamic->final_callback([dynamic, args] {
    std::cout << std::unitbuf;  // replies must show before the next prompt, also through a pipe
    args->collect.app = dynamic->remaining();
    if (!args->collect.app.empty() && args->collect.app.front() == "--") {
      args->collect.app.erase(args->collect.app.begin());
    } else if (RejectOptionTakenForApp(args->collect.app, "aiprof dynamic")) {
      throw CLI::RuntimeError(kExitUsage);
    }
    NoteExplicitOptions(*dynamic, &args->collect);
    const auto& given = args->collect.explicit_options;
    for (const char* option : {"delay", "duration"}) {
      if (std::find(given.begin(), given.end(), option) != given.end()) {
        std::cerr << "aiprof dynamic: --" << option
                  << " cannot be combined with --dynamic=on; start and stop collection at the "
                     "prompt instead\n";
        throw CLI::RuntimeError(kExitUsage);
      }
    }
    if (args->list) throw CLI::RuntimeError(ListJobs());
    if (!args->pids.empty()) {
      if (!args->collect.app.empty() || !args->collect.application.empty()) {
        std::cerr << "aiprof dynamic: give either --pid (attach) or an app (launch), not both\n";
        throw CLI::RuntimeError(kExitUsage);
      }
      if (std::find(given.begin(), given.end(), "export") != given.end()) {
        std::cerr << "aiprof dynamic: --export applies when aiprof launches the app; export what "
                     "an attached job wrote with aiprof export --output=<dir>\n";
        throw CLI::RuntimeError(kExitUsage);
      }
      throw CLI::RuntimeError(Attach(*args));
    }
    if (args->collect.app.empty() && args->collect.application.empty()) {
      // A bad option value (which may have taken the app as its value) is named first.
      CollectArgs checked = args->collect;
      checked.app = {"app"};
      CollectConfig unused;
      std::string error;
      if (!ResolveCollectArgs(checked, DetectMachine(), &unused, &error)) {
        std::cerr << "aiprof dynamic: " << error << "\n";
        throw CLI::RuntimeError(kExitUsage);
      }
      std::cerr << "aiprof dynamic: give an app to launch, --pid=<pid> to attach, or --list\n";
      throw CLI::RuntimeError(kExitUsage);
    }
    throw CLI::RuntimeError(Launch(*args));
  });
}

}  // namespace aiprof::cli
