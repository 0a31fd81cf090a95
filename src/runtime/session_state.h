// State shared by session.cc (windows), writer.cc (the writer thread) and sources.cc.
// Guarded by `mutex`, which the record path never takes.
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "aiprof/plugin.h"
#include "format/chunk_writer.h"
#include "runtime/clock.h"
#include "runtime/options.h"

namespace aiprof::runtime {

struct Window {
  std::unique_ptr<format::ChunkWriter> file;
  std::string dir;
  std::string data_path;
  Options options;
  nlohmann::json info;  // info.json, also the content of the Metadata chunks
  uint32_t strings_emitted = 0;
  uint32_t domains_emitted = 0;
  uint64_t string_drops_reported = 0;
  bool collection_start_emitted = false;
  ClockSyncSample first_sync{};
  uint64_t index = 0;
  // A window before its first data (launch mode, fork children): no directory, file or
  // info.json yet.
  bool files_deferred = false;
  // The window's files were created after it opened: its first flush also writes the clock
  // sample taken at the opening, so the clock fit has the same two ends as for any window.
  bool first_sync_pending = false;
};

struct SessionState {
  std::mutex mutex;
  bool open = false;
  Window window;
  std::string last_dir;
  std::string options_json = "{}";
  uint64_t windows_started = 0;
  // Timers driven by the writer thread (realtime ns, 0 = none).
  bool start_scheduled = false;
  Options scheduled_options;
  uint64_t start_at_ns = 0;
  uint64_t stop_at_ns = 0;
  // Writer thread.
  pthread_t writer{};
  bool writer_running = false;
  std::atomic<bool> writer_exit{false};
  uint64_t next_flush_ns = 0;
  // Async-signal requests (set from handlers, served by the writer).
  // A stop asked for without the mutex (signal handler, _exit): the writer thread closes the
  // window with this reason and status. The status is stored before the reason (release).
  std::atomic<const char*> pending_stop_reason{nullptr};
  std::atomic<int> pending_stop_status{0};
  std::atomic<uint64_t> signal_requests{0};
  std::atomic<uint64_t> signal_requests_done{0};
  std::atomic<bool> flush_requested{false};
};

SessionState& Session();

// writer.cc. Caller holds Session().mutex and a window is open.
void FlushLocked(SessionState& session, bool final);
// Starts the writer thread if it is not running. Caller holds the mutex.
bool EnsureWriterThreadLocked(SessionState& session);
// Stops and joins the writer thread. Caller does NOT hold the mutex.
void StopWriterThread(SessionState& session);
// session.cc. Caller holds the mutex.
void StopWindowLocked(SessionState& session, const char* reason, int exit_status);
bool StartWindowLocked(SessionState& session, const Options& options, std::string* error);
// Creates the directory of a window opened with deferred files (writer.cc, at the first flush
// with data). On failure, prints why and stops collecting. Caller holds the mutex.
bool CreateDeferredWindowFilesLocked(SessionState& session);
// writer.cc. Forgets records buffered outside a window and zeroes drop counters, so a new
// window's file holds only its own data. Caller holds the mutex.
void DiscardBufferedLocked();
// Unconditional wake-up write (async-signal-safe).
void PokeWriterNow();

}  // namespace aiprof::runtime
