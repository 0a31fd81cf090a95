/* The C ABI between libaiprof.so (the runtime) and data sources that live in their own
 * shared objects (PyTorch operators, CUDA/CUPTI, NVML, Python bindings). A source never
 * writes files or starts threads of its own for event data: it formats records as
 * described in src/format/records*.h and hands them to the runtime, which puts them in the
 * calling thread's buffer with the same bounds and drop accounting as markers.
 *
 * Every function here is safe to call from any thread, at any time, including before
 * aiprof_init and after aiprof_finalize (then they do nothing and return 0 / failure).
 * Record-path functions (aiprof_now, aiprof_emit*, aiprof_intern_cached) never allocate,
 * lock, format or make a system call. */
#ifndef AIPROF_PLUGIN_H_
#define AIPROF_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AIPROF_PLUGIN_ABI_VERSION 2

/* Nonzero while collection is active. A relaxed load of this is the disabled check. */
extern volatile int aiprof_collecting;

/* Current time in the process clock (the clock of every record's timestamps). */
uint64_t aiprof_now(void);

/* Nonzero when the process clock is the invariant TSC (set once, when the runtime loads,
 * before any record): a source on x86 may then read it with rdtsc itself, which saves the
 * call to aiprof_now on its hottest path. */
extern volatile int aiprof_clock_is_tsc;

/* Interns a string and returns its id (0 = the empty string). Strings are stored once per
 * process and written out by the runtime. Lock-free; hashes the bytes. Returns 0 and counts
 * a drop when the string table is full. */
uint32_t aiprof_intern(const char* text, size_t length);

/* Appends one record (RecordHeader + ext words, 16-byte units, already filled, including
 * the timestamp) to the calling thread's buffer. Returns 1 if stored, 0 if dropped (counted)
 * or not collecting. `words` counts the header too. */
int aiprof_emit(const void* record, uint32_t words);

/* ---- The inline record path ----
 * What aiprof_emit does, without the call, for a source's hottest path (the PyTorch
 * operator callbacks; a call into the runtime and a second copy of the record are a fifth of
 * what the plugin adds per operator). The calling thread's current buffer block is reached
 * through an initial-exec TLS pointer the runtime exports; a record that fits is copied
 * straight into the block and published with one release store, exactly as the runtime's
 * own record path does. Everything else (not collecting, the thread's first record, a full
 * block) goes through aiprof_emit, which registers the thread, chains blocks and counts
 * drops. The struct is the first part of the runtime's per-thread state, which only its
 * thread writes; a source reads and advances it on that thread only. */
#define AIPROF_BLOCK_BYTES 65536u

typedef struct aiprof_thread_buffer {
  unsigned char* block_data; /* the thread's current block; NULL when it has none */
  uint32_t* committed;       /* the block's bytes of whole records, read by the writer */
  uint32_t position;         /* bytes written into the block; AIPROF_BLOCK_BYTES if none */
} aiprof_thread_buffer;

/* The calling thread's buffer, NULL until its first record. */
extern __thread aiprof_thread_buffer* aiprof_current_buffer
    __attribute__((tls_model("initial-exec")));

/* aiprof_emit, inline: same arguments, result and bounds. */
static inline int aiprof_emit_inline(const void* record, uint32_t words) {
  aiprof_thread_buffer* buffer = aiprof_current_buffer;
  const uint32_t bytes = words * 16u;
  if (__builtin_expect(buffer != NULL && aiprof_collecting != 0 &&
                           buffer->position + bytes <= AIPROF_BLOCK_BYTES,
                       1)) {
    unsigned char* at = buffer->block_data + buffer->position;
    /* Word by word: for these few words a call to libc's memcpy costs more than the copy. */
    for (uint32_t word = 0; word < words; ++word) {
      __builtin_memcpy(at + word * 16u, (const unsigned char*)record + word * 16u, 16u);
    }
    buffer->position += bytes;
    __atomic_store_n(buffer->committed, buffer->position, __ATOMIC_RELEASE);
    return 1;
  }
  return aiprof_emit(record, words);
}

/* As aiprof_emit, but the record belongs to thread `tid` of this process (e.g. CUPTI
 * activity records, which arrive on a CUPTI thread). */
int aiprof_emit_for_thread(uint32_t tid, const void* record, uint32_t words);

/* Unique nonzero id for a cross-thread range or correlation within this process. */
uint64_t aiprof_next_id(void);

/* Lifecycle hooks a source registers so the runtime drives it with collection windows. */
typedef struct aiprof_source {
  uint32_t abi_version;              /* AIPROF_PLUGIN_ABI_VERSION */
  const char* name;                  /* "torch", "cuda", ... */
  void (*on_start)(void* user);      /* collection begins (options already applied) */
  void (*on_stop)(void* user);       /* collection ends; emit everything still buffered */
  void (*on_flush)(void* user);      /* periodic (writer thread); push buffered records */
  void (*on_fork_child)(void* user); /* in the child after fork, before anything else */
  void* user;
} aiprof_source;

/* Registers a source; its on_start runs at once if collecting. Returns 0 on success. */
int aiprof_register_source(const aiprof_source* source);

/* The collection options in force, as the JSON text of AIPROF_OPTIONS (see docs/cli.md),
 * or "{}". The pointer stays valid until the next start. */
const char* aiprof_options_json(void);

/* Adds a key/value to the process metadata written into the raw data (e.g. device
 * properties from the CUDA source as a JSON value). `json_value` must be valid JSON. */
void aiprof_add_metadata(const char* key, const char* json_value);

/* Device-side marking of mstx ranges given a stream (mstxRangeStartA(message, stream)):
 * the CUDA source registers these; the runtime calls `start` after it recorded a range
 * start with a non-NULL stream, and `end` for every range end (the source ignores ranges it
 * did not mark). Both run on the calling thread and must not block. NULL unregisters. */
typedef void (*aiprof_device_range_start_fn)(uint64_t range_id, void* stream);
typedef void (*aiprof_device_range_end_fn)(uint64_t range_id);
void aiprof_set_device_range_hooks(aiprof_device_range_start_fn start,
                                   aiprof_device_range_end_fn end);

/* ---- Descriptors ----
 * A job may close every descriptor above 2 (daemons and some launchers do) and open its own
 * files, which then get a source's old numbers: an ioctl, read or close through a number the
 * source remembers would hit the job's file. So a source keeps every descriptor it makes
 * registered with the runtime, uses it only through aiprof_fd_use and closes it only through
 * aiprof_fd_close. The job's close, close_range, closefrom, dup2 and dup3 are interposed by
 * the runtime: closing a registered number unregisters it and waits (bounded) for a use in
 * progress before the job's call takes effect, so no use starts on a number the job closed.
 * A number the job closed is left to it: the source forgets it (never closes it).
 * Registered numbers are a bitmap: any count (one perf event per thread and CPU), numbers
 * below 1 << 20 (Linux's default fs.nr_open); a descriptor at or above that is not registered.
 * A close that bypasses libc (a raw close_range system call) is not seen. None of these is
 * a record-path function: each may make system calls or wait for a job's close. */

/* A token taken right before a descriptor is made (perf_event_open, socket, pipe2, ...),
 * for aiprof_fd_adopt: the job's closes from now on are recorded. */
uint64_t aiprof_fd_watch(void);

/* Registers `fd`, made since aiprof_fd_watch returned `watch`. Returns `fd`; or -1 when a
 * close of the job since the token may have covered the number (errno EBADF: it may be the
 * job's file now) or it is at or above the bound (errno EMFILE): the source must then
 * neither use nor close it (make it again). */
int aiprof_fd_adopt(uint64_t watch, int fd);

/* Opens `path` with `flags` (O_CLOEXEC added) and registers the descriptor, opening it again
 * (a few tries) while the job's closes take the number. -1 with errno when it cannot. */
int aiprof_fd_open(const char* path, int flags);

/* Runs io(fd, context) while `fd` is still registered and returns 0; returns -1 (errno
 * EBADF) without calling io when the job closed the number. io must not close descriptors
 * (a job's close would wait for it) and should be short: an ioctl, one read, an mmap. */
typedef void (*aiprof_fd_io_fn)(int fd, void* context);
int aiprof_fd_use(int fd, aiprof_fd_io_fn io, void* context);

/* Closes `fd` and unregisters it when it is still registered (0); -1 (errno EBADF) and the
 * number left alone when the job closed it. */
int aiprof_fd_close(int fd);

/* How many registered numbers (every source's) the job's closes have unregistered since the
 * process started, and in *last_close_ns (when not NULL) the CLOCK_MONOTONIC_RAW time in ns
 * of the latest such close (0: none yet). Atomics only: a source compares the count with the
 * one it saw last, at each flush, to learn that the job closed descriptors (then finds which
 * of its own with aiprof_fd_use) and when, without probing every number. */
uint64_t aiprof_fd_job_closes(uint64_t* last_close_ns);

#ifdef __cplusplus
}
#endif

#endif /* AIPROF_PLUGIN_H_ */
