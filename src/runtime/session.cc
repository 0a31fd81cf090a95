#include "runtime/session.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>

#include "format/output_layout.h"
#include "runtime/domains.h"
#include "runtime/lifecycle.h"
#include "runtime/metadata.h"
#include "runtime/plugin_fds.h"
#include "runtime/runtime.h"
#include "runtime/session_state.h"
#include "runtime/sources.h"

namespace aiprof::runtime {

namespace {

alignas(SessionState) unsigned char g_session_storage[sizeof(SessionState)];
std::once_flag g_session_once;

uint64_t RealtimeNs() {
  return ReadClockNs(CLOCK_REALTIME);
}

void SetCollecting(bool on, bool markers) {
  int state = !on ? kMarkersOff : markers ? kMarkersRecorded : kMarkersCounted;
  __atomic_store_n(&aiprof_markers_active, state, __ATOMIC_RELAXED);
  __atomic_store_n(&aiprof_collecting, on ? 1 : 0, __ATOMIC_RELEASE);
}

void WriteMetadataChunk(Window& window) {
  if (window.file == nullptr) return;
  std::string text = window.info.dump();
  WriteWindowChunk(window, format::ChunkType::kMetadata, 0, text.data(),
                   static_cast<uint32_t>(text.size()));
}

// On a full disk the window's reserve file makes room for it.
void WriteInfoJson(const Window& window) {
  std::string error, text = window.info.dump(2) + "\n";
  if (WriteFileAtomically(window.dir + "/info.json", text, &error)) return;
  if (unlink(RuntimeReservePath(window).c_str()) == 0 &&
      WriteFileAtomically(window.dir + "/info.json", text, &error)) {
    return;
  }
  std::fprintf(stderr, "aiprof: %s\n", error.c_str());
}

// Space set aside in the window's directory (see RuntimeReservePath); nothing when the disk
// has none left already.
constexpr off_t kReserveBytes = 64 * 1024;
void CreateReserve(const std::string& path) {
  OwnedFd file = OwnedFd::Open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  bool reserved = false;
  file.Use([&](int fd) { reserved = posix_fallocate(fd, 0, kReserveBytes) == 0; });
  file.Close();
  if (!reserved) unlink(path.c_str());
}

}  // namespace

SessionState& Session() {
  std::call_once(g_session_once, [] { new (g_session_storage) SessionState(); });
  return *reinterpret_cast<SessionState*>(g_session_storage);
}

namespace {

// Creates the window's PROF_* directory, raw file and info.json. Runs when the window
// opens, or for a fork child's window at the first flush that has data.
bool CreateWindowFiles(SessionState& session, std::string* error) {
  Window& window = session.window;
  const Options& options = window.options;
  if (!CreateProfDir(options.output, options.seq, &window.dir, error)) return false;
  window.data_path = window.dir + "/" + format::RuntimeDataFile(getpid());
  format::ChunkWriterOptions file_options;
  file_options.compress = options.compress;
  // Opened and its header written as the runtime's own descriptor: a program closing
  // descriptors meanwhile may take the number (owned_fd.h).
  window.file_fd = OwnedFd::Open(window.data_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!window.file_fd.valid()) {
    *error = "cannot create " + window.data_path + ": " + std::strerror(errno);
    return false;
  }
  const bool ours = window.file_fd.Use([&](int fd) {
    window.file =
        format::ChunkWriter::FromFd(fd, static_cast<uint32_t>(getpid()), file_options, error);
  });
  if (!ours) *error = "cannot create " + window.data_path + ": the program took its descriptor";
  if (window.file == nullptr) {
    window.file_fd.Close();  // ChunkWriter::Create closed it on failure; the window keeps none
    return false;
  }
  ClockSource clock = CurrentClockSource();
  window.info = ProcessMetadata();
  window.info["format"] = "aiprof-raw";
  window.info["prof_dir"] = window.dir;
  window.info["data_files"] = {format::RuntimeDataFile(getpid())};
  window.info["clock"] = {{"source", ClockSourceName(clock)},
                          {"tsc_hz_estimate", nullptr},
                          {"start_ticks", window.first_sync.ticks},
                          {"start_monotonic_raw_ns", window.first_sync.monotonic_raw_ns},
                          {"start_realtime_ns", window.first_sync.realtime_ns}};
  window.info["options"] = nlohmann::json::parse(options.json, nullptr, false);
  window.info["start_realtime_ns"] = window.first_sync.realtime_ns;
  window.info["end_realtime_ns"] = nullptr;
  window.info["window_index"] = window.index;
  window.info["exit_status"] = nullptr;
  window.info["stop_reason"] = nullptr;
  window.info["drops"] = {{"total", 0}, {"by_kind", nlohmann::json::object()}};
  window.info["metadata"] = ExtraMetadata();
  window.files_deferred = false;
  session.last_dir = window.dir;
  CreateReserve(RuntimeReservePath(window));
  if (options.mode == "launch" && options.launcher_pid > 0 &&
      getppid() == static_cast<pid_t>(options.launcher_pid)) {
    CreateReserve(LauncherReservePath(window));
  }
  WriteMetadataChunk(window);
  WriteInfoJson(window);
  return true;
}

// The launched program itself (the launcher's child, not replaced by an exec) keeps a
// directory even when it recorded nothing: it says how the program ended, and the
// launcher adds its exit status and the host resource data there.
bool KeepsEmptyWindow(const Options& options, const char* reason) {
  return options.mode == "launch" && options.launcher_pid > 0 &&
         getppid() == static_cast<pid_t>(options.launcher_pid) && std::strcmp(reason, "exec") != 0;
}

// Opens a window; with `defer_files` its directory is created only once it has data.
bool OpenWindowLocked(SessionState& session, const Options& options, bool defer_files,
                      std::string* error) {
  if (session.open) {
    *error = "a collection window is already open (" + session.window.dir + ")";
    return false;
  }
  if (!InitBuffers(options.buffer_mb)) {
    *error = "cannot reserve buffer memory";
    return false;
  }
  DiscardBufferedLocked();
  session.window = Window();
  session.window.options = options;
  session.window.first_sync = SampleClocks();
  session.window.index = session.windows_started++;
  session.window.files_deferred = true;
  if (!defer_files && !CreateWindowFiles(session, error)) {
    session.window = Window();
    --session.windows_started;
    return false;
  }
  session.open = true;
  SetOptionsJson(options.json);

  ApplyDomainFilters(options.mstx_domain_include, options.mstx_domain_exclude);
  session.stop_at_ns = 0;
  if (options.duration_s > 0) {
    uint64_t base = options.launch_realtime_ns != 0 ? options.launch_realtime_ns : RealtimeNs();
    session.stop_at_ns = base + static_cast<uint64_t>((options.delay_s + options.duration_s) * 1e9);
  }
  const uint64_t opened = session.window.first_sync.realtime_ns;
  session.next_flush_ns = opened + NextFlushDelayNs(session.window, opened);
  InstallSignalHandlers();
  InstallProcessHooks();
  g_ignored_marker_calls.store(0, std::memory_order_relaxed);
  SetCollecting(true, options.msproftx);
  FlushLocked(session, false);  // strings, domains, first ClockSync
  RunSourcesStart();
  if (!EnsureWriterThreadLocked(session)) {
    *error = "cannot start the writer thread";
    StopWindowLocked(session, "writer_thread_failed", kExitStatusUnknown);
    return false;
  }
  return true;
}

}  // namespace

bool StartWindowLocked(SessionState& session, const Options& options, std::string* error) {
  // Under the launcher every process of the job loads the runtime, including the helpers a
  // wrapper runs (env, a pyenv shim, the commands of a shell script) and each image an exec
  // replaces: a directory each would bury the job's own. So a launch-mode window gets its
  // directory once it has data (StopWindowLocked keeps the launched program's).
  return OpenWindowLocked(session, options, options.mode == "launch", error);
}

bool CreateDeferredWindowFilesLocked(SessionState& session) {
  std::string error;
  if (CreateWindowFiles(session, &error)) {
    session.window.first_sync_pending = true;
    return true;
  }
  std::fprintf(stderr, "aiprof: process %d: %s; profiling disabled in this process\n", getpid(),
               error.c_str());
  session.window.files_deferred = false;
  SetCollecting(false, false);
  return false;
}

void StopWindowLocked(SessionState& session, const char* reason, int exit_status) {
  if (!session.open) return;
  RunSourcesStop();
  SetCollecting(false, false);
  Window& window = session.window;
  FlushLocked(session, true);
  if (window.files_deferred) {
    // A window that never had data (a fork child, a helper program, an image an exec
    // replaced) leaves no directory behind; the launched program's gets one now.
    if (!KeepsEmptyWindow(window.options, reason) || !CreateDeferredWindowFilesLocked(session)) {
      session.open = false;
      session.stop_at_ns = 0;
      return;
    }
    FlushLocked(session, true);
  }
  ClockSyncSample last = SampleClocks();
  double ticks_per_second = EstimateTicksPerSecond(window.first_sync, last);
  window.info["clock"]["tsc_hz_estimate"] =
      ticks_per_second > 0 ? nlohmann::json(ticks_per_second) : nlohmann::json(nullptr);
  window.info["end_realtime_ns"] = last.realtime_ns;
  window.info["stop_reason"] = reason;
  window.info["markers_ignored"] = g_ignored_marker_calls.exchange(0, std::memory_order_relaxed);
  window.info["metadata"] = ExtraMetadata();
  if (exit_status != kExitStatusUnknown) window.info["exit_status"] = exit_status;
  if (window.file_reopened > 0) window.info["raw_file_reopened"] = window.file_reopened;
  if (window.write_error.empty()) {
    WriteMetadataChunk(window);
  } else {
    RecordWriteFailure(window);
  }
  CloseWindowFile(window);
  if (!window.dir.empty()) {
    WriteInfoJson(window);
    unlink(RuntimeReservePath(window).c_str());
  }
  session.open = false;
  session.stop_at_ns = 0;
}

bool StartWindow(const Options& options, std::string* error) {
  SessionState& session = Session();
  std::lock_guard<std::mutex> lock(session.mutex);
  session.start_scheduled = false;
  return StartWindowLocked(session, options, error);
}

void StopWindow(const char* reason, int exit_status) {
  SessionState& session = Session();
  std::lock_guard<std::mutex> lock(session.mutex);
  session.start_scheduled = false;
  StopWindowLocked(session, reason, exit_status);
}

bool ScheduleWindow(const Options& options, std::string* error) {
  SessionState& session = Session();
  std::lock_guard<std::mutex> lock(session.mutex);
  uint64_t base = options.launch_realtime_ns != 0 ? options.launch_realtime_ns : RealtimeNs();
  uint64_t start_at = base + static_cast<uint64_t>(options.delay_s * 1e9);
  if (start_at <= RealtimeNs()) return StartWindowLocked(session, options, error);
  if (!InitBuffers(options.buffer_mb)) {
    *error = "cannot reserve buffer memory";
    return false;
  }
  session.scheduled_options = options;
  session.start_at_ns = start_at;
  session.start_scheduled = true;
  InstallSignalHandlers();
  InstallProcessHooks();
  return EnsureWriterThreadLocked(session);
}

bool StopWindowForExec(Options* options) {
  SessionState& session = Session();
  std::lock_guard<std::mutex> lock(session.mutex);
  session.start_scheduled = false;
  if (!session.open) return false;
  *options = session.window.options;
  StopWindowLocked(session, "exec", kExitStatusUnknown);
  return true;
}

void ReopenAfterFailedExec(const Options& options) {
  SessionState& session = Session();
  std::lock_guard<std::mutex> lock(session.mutex);
  std::string error;
  if (!OpenWindowLocked(session, options, true, &error)) {
    std::fprintf(stderr, "aiprof: cannot resume collection after a failed exec: %s\n",
                 error.c_str());
  }
}

bool WindowOpen() {
  SessionState& session = Session();
  std::lock_guard<std::mutex> lock(session.mutex);
  return session.open;
}

std::string CurrentDir() {
  SessionState& session = Session();
  std::lock_guard<std::mutex> lock(session.mutex);
  return session.last_dir;
}

void ShutdownForExit(const char* reason, int exit_status) {
  SessionState& session = Session();
  {
    std::lock_guard<std::mutex> lock(session.mutex);
    session.start_scheduled = false;
    StopWindowLocked(session, reason, exit_status);
  }
  StopWriterThread(session);
}

namespace {

// Hands a request to the writer thread and waits (bounded) until it has been served. Takes no
// lock, so it is usable from signal handlers and from _exit.
template <typename SetRequest>
bool RequestFromWriter(int timeout_ms, SetRequest set_request) {
  SessionState& session = Session();
  if (!session.writer_running) return false;
  uint64_t ticket = session.signal_requests.fetch_add(1) + 1;
  set_request(session);
  PokeWriterNow();
  for (int waited = 0; waited < timeout_ms; ++waited) {
    if (session.signal_requests_done.load() >= ticket) return true;
    timespec millisecond{0, 1000000};
    nanosleep(&millisecond, nullptr);
  }
  return false;
}

bool RequestStop(const char* reason, int exit_status, int timeout_ms) {
  return RequestFromWriter(timeout_ms, [&](SessionState& session) {
    session.pending_stop_status.store(exit_status, std::memory_order_relaxed);
    session.pending_stop_reason.store(reason, std::memory_order_release);
  });
}

}  // namespace

bool RequestStopFromSignal(int signo, int timeout_ms) {
  return RequestStop("signal", 128 + signo, timeout_ms);
}

bool RequestStopForImmediateExit(int exit_status, int timeout_ms) {
  return RequestStop("_exit", exit_status, timeout_ms);
}

bool RequestFlushFromSignal(int timeout_ms) {
  return RequestFromWriter(timeout_ms,
                           [](SessionState& session) { session.flush_requested.store(true); });
}

void PrepareFork() {
  SessionState& session = Session();
  session.fork_waiting.fetch_add(1);
  session.mutex.lock();
  session.fork_waiting.fetch_sub(1);
}

void ParentAfterFork() {
  Session().mutex.unlock();
}

void ChildAfterFork() {
  SessionState& session = Session();
  Runtime& runtime = GetRuntime();
  NoteForkChild();
  ResetOwnedFdUsersAfterFork();
  ResetPluginFdUsersAfterFork();
  // Only this thread exists now: the writer thread and every other producer are gone.
  session.writer_running = false;
  session.writer_exit.store(false);
  aiprof_current_buffer = nullptr;
  if (runtime.buffers_ready.load(std::memory_order_acquire)) {
    runtime.threads.ResetAfterFork();
    runtime.pool.ResetAfterFork();
  }
  runtime.poke_pending.store(false);
  RunSourcesForkChild();
  bool was_open = session.open;
  Options options = session.window.options;
  CloseWindowFile(session.window);  // the child's copy of the parent's descriptor
  session.open = false;
  session.last_dir.clear();
  session.start_scheduled = false;
  SetCollecting(false, false);
  session.windows_started = 0;
  if (was_open && options.follow_children) {
    // The child records from here on, but gets a directory only once it has data: a child
    // that execs or exits without recording leaves nothing behind.
    std::string error;
    if (!OpenWindowLocked(session, options, true, &error)) {
      std::fprintf(stderr, "aiprof: child %d: %s; profiling disabled in this process\n", getpid(),
                   error.c_str());
    }
  }
  session.mutex.unlock();
}

}  // namespace aiprof::runtime
