// State shared by session.cc (windows), writer.cc (the writer thread) and sources.cc.
// Guarded by `mutex`, which the record path never takes.
#pragma once

#include <pthread.h>

#include <array>
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
#include "runtime/owned_fd.h"

namespace aiprof::runtime {

struct Window {
  std::unique_ptr<format::ChunkWriter> file;
  // The raw file's descriptor as the runtime's own (owned_fd.h): each chunk is written only
  // while it still is; when the program closed it, the file is opened again for appending.
  OwnedFd file_fd;
  uint32_t file_reopened = 0;
  // Writing failed (a full disk): collection is off from then on, and every chunk that
  // could not be written is counted (events by record kind) for info.json and the raw
  // file's drop counts, written when the window stops with the space of the reserve file.
  std::string write_error;
  uint64_t write_failed_realtime_ns = 0;
  uint64_t unwritten_bytes = 0;
  std::array<uint64_t, 256> unwritten_by_kind{};
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
  // A flush has written records of the program's threads (flushes come every 50 ms until then,
  // for the window's first second: writer.cc NextFlushDelayNs).
  bool records_written = false;
};

struct SessionState {
  std::mutex mutex;
  // A fork() waiting for `mutex` (PrepareFork): the writer, which takes the mutex again at
  // once while producers keep it busy, lets it in first instead of starving the program.
  std::atomic<int> fork_waiting{0};
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
// writer.cc. Time from `now` to the window's next flush: its flush interval, or 50 ms while
// its first records are not on disk yet (during its first second).
uint64_t NextFlushDelayNs(const Window& window, uint64_t now);
// Unconditional wake-up (async-signal-safe).
void PokeWriterNow();
// writer.cc. Appends one chunk to the window's raw file through its OwnedFd (reopening the
// file when the program closed the descriptor); on failure prints why and stops collecting.
// Caller holds the mutex.
bool WriteWindowChunk(Window& window, format::ChunkType type, uint32_t tid, const void* data,
                      uint32_t size);
// Closes the window's raw file (only when its descriptor is still the runtime's).
void CloseWindowFile(Window& window);
// After a write failure: frees the window's reserve file and appends the counts of what
// could not be written (drop records per kind) to the raw file; info.json gets them too.
// Caller holds the mutex.
void RecordWriteFailure(Window& window);
// A window's reserve file: space set aside when the window's files are created, freed to
// write its last records and info.json when the disk filled up (`.reserve.launcher`: the
// same for the launcher, which adds the program's exit status to info.json afterwards).
std::string RuntimeReservePath(const Window& window);
std::string LauncherReservePath(const Window& window);

}  // namespace aiprof::runtime
