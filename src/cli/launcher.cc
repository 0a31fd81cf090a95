#include "cli/launcher.h"

#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "cli/command.h"
#include "export/export_job.h"
#include "format/output_layout.h"
#include "sources/host/host_sampler.h"
#include "sources/host/prof_dirs.h"

extern char** environ;

namespace aiprof::cli {
namespace {

volatile sig_atomic_t g_app_pid = 0;

// A signal typed at the terminal (si_code SI_KERNEL) already reached the app, which shares
// our process group; one sent to the launcher alone (kill, timeout, a batch system) is
// passed on so the app can stop and its runtime can write its data.
void ForwardSignal(int signal_number, siginfo_t* info, void*) {
  pid_t app = g_app_pid;
  if (app > 0 && info->si_code != SI_KERNEL) kill(app, signal_number);
}

constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

void InstallForwarding() {
  struct sigaction action {};
  action.sa_sigaction = ForwardSignal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int signal_number : kForwardedSignals) sigaction(signal_number, &action, nullptr);
}

std::string SelfDir() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : self.parent_path().string();
}

// LD_PRELOAD's list: separated by spaces or colons.
std::vector<std::string> SplitPreload(const std::string& text) {
  std::vector<std::string> libraries;
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t end = text.find_first_of(" :", begin);
    const std::string library = text.substr(begin, end == std::string::npos ? end : end - begin);
    if (!library.empty()) libraries.push_back(library);
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return libraries;
}

// A sanitizer's runtime must be the first library of the process.
bool IsSanitizerRuntime(const std::string& library) {
  const std::string name = std::filesystem::path(library).filename().string();
  for (const char* prefix : {"libclang_rt.", "libasan", "libtsan", "libubsan", "liblsan"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// The app's LD_PRELOAD: aiprof's runtime (and the plugins that must be in the process from
// its first instruction, docs/cpu-sampling.md), then the user's own preloads (from
// --environment, else the environment), except that a sanitizer runtime among them goes
// first.
std::string AppPreload(const CollectConfig& config, const std::string& lib_dir) {
  std::string user;
  if (const char* existing = getenv("LD_PRELOAD")) user = existing;
  for (const std::string& entry : config.environment) {
    if (entry.rfind("LD_PRELOAD=", 0) == 0) user = entry.substr(std::strlen("LD_PRELOAD="));
  }
  std::vector<std::string> first, last;
  for (const std::string& library : SplitPreload(user)) {
    (IsSanitizerRuntime(library) ? first : last).push_back(library);
  }
  first.push_back(lib_dir + "/libaiprof.so");
  if (config.cpu_sampling_hz > 0) first.push_back(lib_dir + "/libaiprof_cpusampling.so");
  if (config.osrt) first.push_back(lib_dir + "/libaiprof_osrt.so");
  first.insert(first.end(), last.begin(), last.end());
  std::string preload;
  for (const std::string& library : first) preload += (preload.empty() ? "" : " ") + library;
  return preload;
}

std::vector<std::string> AppEnvironment(const CollectConfig& config, const std::string& lib_dir,
                                        const std::string& options_json) {
  std::vector<std::string> env;
  std::set<std::string> replaced = {"LD_PRELOAD", "AIPROF_OPTIONS", "CUDA_INJECTION64_PATH"};
  for (const std::string& entry : config.environment) {
    replaced.insert(entry.substr(0, entry.find('=')));
  }
  for (char** entry = environ; *entry; ++entry) {
    std::string text = *entry;
    if (!replaced.count(text.substr(0, text.find('=')))) env.push_back(text);
  }
  env.push_back("LD_PRELOAD=" + AppPreload(config, lib_dir));
  env.push_back("AIPROF_OPTIONS=" + options_json);
  std::string cuda_plugin = lib_dir + "/libaiprof_cuda.so";
  if (access(cuda_plugin.c_str(), R_OK) == 0) {
    env.push_back("CUDA_INJECTION64_PATH=" + cuda_plugin);
  } else if (const char* existing = getenv("CUDA_INJECTION64_PATH")) {
    env.push_back(std::string("CUDA_INJECTION64_PATH=") + existing);
  }
  for (const std::string& entry : config.environment) {
    if (entry.rfind("LD_PRELOAD=", 0) != 0) env.push_back(entry);
  }
  return env;
}

// fork + execvp. An exec failure comes back through a close-on-exec pipe so the launcher
// can say why instead of returning a bare 127.
pid_t Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
            std::string* error) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  std::vector<char*> argv_ptrs, env_ptrs;
  for (const std::string& arg : argv) argv_ptrs.push_back(const_cast<char*>(arg.c_str()));
  argv_ptrs.push_back(nullptr);
  for (const std::string& entry : env) env_ptrs.push_back(const_cast<char*>(entry.c_str()));
  env_ptrs.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return -1;
  }
  if (pid == 0) {
    for (int signal_number : kForwardedSignals) signal(signal_number, SIG_DFL);
    close(pipe_fds[0]);
    environ = env_ptrs.data();
    execvp(argv_ptrs[0], argv_ptrs.data());
    int exec_errno = errno;
    ssize_t ignored = write(pipe_fds[1], &exec_errno, sizeof(exec_errno));
    (void)ignored;
    _exit(127);
  }
  close(pipe_fds[1]);
  int exec_errno = 0;
  ssize_t n;
  do {
    n = read(pipe_fds[0], &exec_errno, sizeof(exec_errno));
  } while (n < 0 && errno == EINTR);
  close(pipe_fds[0]);
  if (n == sizeof(exec_errno)) {
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    *error = "cannot run '" + argv[0] + "': " + std::strerror(exec_errno);
    return -1;
  }
  return pid;
}

// Reaps every child (we are the subreaper of the app's tree) until the app itself ends.
int WaitForApp(pid_t app) {
  while (true) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (pid == app) return status;
  }
}

nlohmann::json ExitStatusJson(int status) {
  if (WIFSIGNALED(status)) {
    return {{"signal", WTERMSIG(status)},
            {"name", strsignal(WTERMSIG(status))},
            {"core_dumped", WCOREDUMP(status) != 0}};
  }
  return {{"code", WEXITSTATUS(status)}};
}

// Writes `text` to `path` through a temporary file renamed over it; false with `error` (and
// the temporary file removed) when it cannot be written whole.
bool ReplaceFile(const std::string& path, const std::string& text, std::string* error) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      *error = "cannot write " + temporary + ": " + std::strerror(errno);
      out.close();
      std::remove(temporary.c_str());
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    *error = "cannot replace " + path + ": " + std::strerror(errno);
    std::remove(temporary.c_str());
    return false;
  }
  return true;
}

// The runtime writes info.json but cannot know how its process ended, nor about the
// launcher's own file; both are added here once the app is gone. Written to a temporary
// file and renamed so a reader never sees half a file.
void AddLaunchInfo(const std::string& prof_dir, const std::string& host_sys_file,
                   const nlohmann::json& exit_status, const CollectConfig& config, pid_t app) {
  std::string path = prof_dir + "/info.json";
  nlohmann::json info = nlohmann::json::object();
  if (std::ifstream in(path); in) {
    info = nlohmann::json::parse(in, nullptr, false);
    if (!info.is_object()) {
      std::cerr << "[aiprof] warning: " << path << " is not a JSON object; the exit status is "
                << "only in the host_sys data\n";
      return;
    }
  } else {
    info = {{"format", "aiprof-raw"}, {"prof_dir", prof_dir}, {"pid", app}};
  }
  if (!host_sys_file.empty()) {
    nlohmann::json& files = info["data_files"];
    if (!files.is_array()) files = nlohmann::json::array();
    if (std::find(files.begin(), files.end(), host_sys_file) == files.end()) {
      files.push_back(host_sys_file);
    }
  }
  info["exit_status"] = exit_status;
  info["launcher"] = {{"pid", getpid()}, {"app", config.app}, {"output", config.output_dir}};
  const std::string text = info.dump(2) + "\n";
  // On a full disk the space the runtime set aside for this (.reserve.launcher) is freed and
  // the write tried again; no half-written or empty temporary file is left either way.
  const std::string reserve = prof_dir + "/.reserve.launcher";
  std::string error;
  bool written = ReplaceFile(path, text, &error);
  if (!written && unlink(reserve.c_str()) == 0) written = ReplaceFile(path, text, &error);
  unlink(reserve.c_str());
  if (!written) {
    std::cerr << "[aiprof] warning: cannot add the exit status to " << path << ": " << error
              << " (is the disk full?); the exit status is in the host_sys data only\n";
  }
}

// The program execvp runs for `name`: itself when it has a slash, else the first match on PATH.
std::string ResolveProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = getenv("PATH");
  std::string directories = path != nullptr ? path : "/usr/bin:/bin";
  for (size_t begin = 0; begin <= directories.size();) {
    size_t end = directories.find(':', begin);
    if (end == std::string::npos) end = directories.size();
    std::string candidate = directories.substr(begin, end - begin) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    begin = end + 1;
  }
  return "";
}

// An ELF executable without a program interpreter is statically linked: LD_PRELOAD, and so
// the runtime, never reaches it. Scripts and anything unreadable are not.
bool IsStaticExecutable(const std::string& name) {
  std::ifstream file(ResolveProgram(name), std::ios::binary);
  Elf64_Ehdr header{};
  if (!file.read(reinterpret_cast<char*>(&header), sizeof header) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum > 256) {
    return false;
  }
  for (int index = 0; index < header.e_phnum; ++index) {
    Elf64_Phdr program{};
    file.seekg(static_cast<std::streamoff>(header.e_phoff + index * sizeof program));
    if (!file.read(reinterpret_cast<char*>(&program), sizeof program)) return false;
    if (program.p_type == PT_INTERP) return false;
  }
  return true;
}

// Why the app left no PROF_* directory, from what the launcher can check, and what to do.
std::string NoDataReason(const CollectConfig& config, int status) {
  std::error_code ec;
  if (!std::filesystem::is_directory(config.output_dir, ec)) {
    return "the output directory " + config.output_dir +
           " was removed while the app ran, so nothing could be kept; give --output a "
           "directory that stays until the app ends";
  }
  if (IsStaticExecutable(config.app[0])) {
    return config.app[0] +
           " is statically linked, so libaiprof.so could not be preloaded into it; profile a "
           "dynamically linked build of it";
  }
  if (WIFSIGNALED(status)) {
    return std::string("the app was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) +
           ") before its first data was written (aiprof writes it about 50 ms after the app "
           "starts)";
  }
  return "the app ended before its first data was written, or recorded nothing in the "
         "collected window (check the collect options, and --delay/--duration)";
}

// The runtime counts marker calls made while --msproftx=off (info.json "markers_ignored").
void ReportIgnoredMarkers(const std::vector<std::string>& prof_dirs) {
  uint64_t ignored = 0;
  for (const std::string& dir : prof_dirs) {
    std::ifstream in(dir + "/info.json");
    nlohmann::json info = nlohmann::json::parse(in, nullptr, false);
    if (info.is_object() && info.value("markers_ignored", nlohmann::json()).is_number_unsigned()) {
      ignored += info["markers_ignored"].get<uint64_t>();
    }
  }
  if (ignored > 0) {
    std::cerr << "[aiprof] the app made " << ignored
              << " mstx/NVTX marker calls that were not recorded (--msproftx=off); leave the "
                 "option out to record them\n";
  }
}

// msprof exports when the job ends: the same job as `aiprof export`, once per new PROF_*
// directory, with one timestamp. The last lines say where each kind of output is.
void ExportCollected(const std::vector<std::string>& prof_dirs, const CollectConfig& config) {
  exporter::ExportOptions options;
  options.type = config.type == "db" ? exporter::ExportType::kDb : exporter::ExportType::kText;
  options.timestamp = exporter::LocalTimestamp();
  options.progress_lines = true;
  std::vector<std::string> outputs;
  bool failed = false;
  if (!prof_dirs.empty()) {
    // One run for every directory: the ranks of a job are exported together, so their
    // communication analysis sees each other's operations.
    options.output = prof_dirs.front();
    options.more_outputs.assign(prof_dirs.begin() + 1, prof_dirs.end());
    for (const std::string& dir : prof_dirs) {
      std::cerr << "[aiprof] Exporting " << dir << " (--export=off skips this)\n";
    }
    exporter::ExportResult result = exporter::RunExport(options, std::cerr, std::cerr);
    failed |= result.exit_code != kExitOk;
    outputs = std::move(result.written);
  }
  // One line per output folder: its summaries and, in analysis/, the analysis files.
  struct SummaryCount {
    std::string dir;
    size_t summaries = 0;
    size_t analyses = 0;
  };
  std::vector<SummaryCount> counts;
  for (const std::string& path : outputs) {
    std::filesystem::path file(path);
    const std::string name = file.filename().string();
    if (name.rfind("trace_view", 0) == 0) {
      std::cerr << "[aiprof] Timeline: " << path << "\n";
      continue;
    }
    if (file.extension() == ".db") {
      std::cerr << "[aiprof] Database: " << path << "\n";
      continue;
    }
    const bool analysis = file.parent_path().filename() == format::kAnalysisDir;
    const std::string dir =
        (analysis ? file.parent_path().parent_path() : file.parent_path()).string();
    auto count = std::find_if(counts.begin(), counts.end(),
                              [&](const SummaryCount& c) { return c.dir == dir; });
    if (count == counts.end()) count = counts.insert(counts.end(), {dir});
    ++(analysis ? count->analyses : count->summaries);
  }
  for (const SummaryCount& count : counts) {
    std::cerr << "[aiprof] Summaries: " << count.summaries << " files in " << count.dir;
    if (count.analyses > 0) {
      std::cerr << " (analyses: " << count.analyses << " files in " << count.dir << "/analysis)";
    }
    std::cerr << "\n";
  }
  if (failed) {
    std::cerr << "[aiprof] the export reported problems (above); run it again with: aiprof "
                 "export --output="
              << config.output_dir << (config.type == "db" ? " --type=db" : "") << "\n";
  }
}

}  // namespace

std::string FindRuntimeLibDir(std::string* error) {
  std::vector<std::string> candidates;
  if (const char* dir = getenv("AIPROF_LIB_DIR"); dir && *dir) candidates.push_back(dir);
  std::string self_dir = SelfDir();
  if (!self_dir.empty()) candidates.push_back(self_dir + "/../lib");
  for (const std::string& dir : candidates) {
    if (access((dir + "/libaiprof.so").c_str(), R_OK) == 0) {
      return std::filesystem::path(dir).lexically_normal().string();
    }
  }
  *error = "libaiprof.so not found in";
  for (const std::string& dir : candidates) *error += " " + dir;
  *error += "; build it (make build) or set AIPROF_LIB_DIR to its directory";
  return "";
}

int RunCollection(const CollectConfig& config) {
  for (const std::string& note : config.notes) std::cerr << "[aiprof] note: " << note << "\n";
  std::string error;
  std::string lib_dir = FindRuntimeLibDir(&error);
  if (lib_dir.empty()) {
    std::cerr << "[aiprof] error: " << error << "\n";
    return kExitFailure;
  }
  if (!host::MakeDirs(config.output_dir, &error)) {
    std::cerr << "[aiprof] error: --output: " << error << "\n";
    return kExitFailure;
  }
  if (access(config.output_dir.c_str(), W_OK) != 0) {
    std::cerr << "[aiprof] error: --output: '" << config.output_dir
              << "' is not writable; choose another directory\n";
    return kExitFailure;
  }
  std::vector<std::string> before = host::ListProfDirs(config.output_dir);
  uint64_t launch_realtime_ns = host::RealtimeNs();
  uint64_t launch_monotonic_ns = host::MonotonicRawNs();
  std::string options_json = RuntimeOptionsJson(config, launch_realtime_ns).dump();

  // Orphaned workers of the app re-parent to us, so the sampler still sees them and no
  // zombie is left behind.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  InstallForwarding();
  pid_t app = Spawn(config.app, AppEnvironment(config, lib_dir, options_json), &error);
  if (app < 0) {
    std::cerr << "[aiprof] error: " << error << "\n";
    return 127;
  }
  g_app_pid = app;

  std::unique_ptr<host::HostSampler> sampler;
  if (config.sampler.AnyEnabled()) {
    host::HostSamplerOptions options = config.sampler;
    options.output_dir = config.output_dir;
    options.dirs_before = std::set<std::string>(before.begin(), before.end());
    options.root_pid = app;
    options.window_begin_ns = launch_monotonic_ns + static_cast<uint64_t>(config.delay_s * 1e9);
    if (config.duration_s > 0) {
      options.window_end_ns =
          options.window_begin_ns + static_cast<uint64_t>(config.duration_s * 1e9);
    }
    options.metadata = {{"options", nlohmann::json::parse(options_json)}, {"app", config.app}};
    sampler = std::make_unique<host::HostSampler>(std::move(options));
    sampler->Start();
  }

  int status = WaitForApp(app);
  g_app_pid = 0;
  if (status < 0) {
    std::cerr << "[aiprof] error: lost track of the app (waitpid: " << std::strerror(errno)
              << ")\n";
    return kExitFailure;
  }
  std::string root_dir, host_sys_file;
  if (sampler) {
    std::string message;
    root_dir = sampler->Stop(ExitStatusJson(status), &message);
    if (!message.empty()) std::cerr << "[aiprof] warning: " << message << "\n";
    if (!root_dir.empty()) host_sys_file = format::HostSamplesDataFile(getpid());
  }
  if (root_dir.empty()) {
    root_dir = host::FindProcessDir(config.output_dir,
                                    std::set<std::string>(before.begin(), before.end()), app);
  }
  if (!root_dir.empty())
    AddLaunchInfo(root_dir, host_sys_file, ExitStatusJson(status), config, app);

  int exit_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    std::cerr << "[aiprof] " << config.app[0] << " was killed by signal " << WTERMSIG(status)
              << " (" << strsignal(WTERMSIG(status)) << ")\n";
  }
  std::set<std::string> old(before.begin(), before.end());
  std::vector<std::string> written;
  for (const std::string& name : host::ListProfDirs(config.output_dir)) {
    if (old.count(name)) continue;
    written.push_back(config.output_dir + "/" + name);
    std::cerr << "[aiprof] Data is saved in " << written.back() << "\n";
  }
  ReportIgnoredMarkers(written);
  // Space the runtime set aside for the exit status (AddLaunchInfo) is not needed any more.
  for (const std::string& dir : written) unlink((dir + "/.reserve.launcher").c_str());
  if (written.empty()) {
    std::cerr << "[aiprof] no profiling data was written to " << config.output_dir << ": "
              << NoDataReason(config, status) << "\n";
  } else if (config.export_after) {
    ExportCollected(written, config);
  } else {
    std::cerr << "[aiprof] Export with: aiprof export --output=" << config.output_dir
              << (config.type == "db" ? " --type=db" : "") << "\n";
  }
  return exit_code;
}

}  // namespace aiprof::cli
