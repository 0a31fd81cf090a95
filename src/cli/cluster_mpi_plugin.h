// The boundary between `aiprof` and MPI: libaiprof_cluster_mpi.so, the only code that links
// libmpi, exports aiprof_cluster_mpi_api() with the few MPI operations `aiprof cluster`
// needs. `aiprof` dlopens it only when an MPI launcher started it (cluster_mpi.h), so every
// other command, and `aiprof` on a machine without MPI, never loads libmpi.
//
// A plain C interface: the plugin and the executable share no C++ types or symbols.
#pragma once

#include <stdint.h>

extern "C" {

inline constexpr uint32_t kAiprofClusterMpiAbi = 3;

struct AiprofClusterMpiApi {
  uint32_t abi;  // kAiprofClusterMpiAbi of the plugin's build
  // MPI_Init_thread (serialized threads); this process's index, the number of processes,
  // and how many of them run on this machine (they share its cores). 0 on success. The
  // thread that calls it must be the one that calls finalize (MPI's "main thread").
  int (*init)(int* process, int* processes, int* processes_on_host);
  // Opens the work queue (collective). Before it, each process p took the tickets
  // p, p + K, p + 2K, ... of its first `rounds_taken` rounds on its own (K processes);
  // `rounds_taken_by_process[q]` receives process q's count, so every process knows which
  // of those tickets nobody took. The shared counter starts at 0.
  void (*open_queue)(uint64_t rounds_taken, uint64_t* rounds_taken_by_process);
  // The next ticket of a counter shared by all processes (an atomic fetch-and-add on
  // process 0's memory): the work queue that hands out the ranks. Not for concurrent
  // calls: callers serialise their threads.
  uint64_t (*next_ticket)(void);
  // Returns once every process has called it. It sleeps between polls: OpenMPI spins in
  // blocking collectives, and a process that finished its share would take a core from
  // the ones still parsing (or from process 0 merging).
  void (*wait_for_all)(void);
  // Gathers `size` bytes from every process to process 0, where `*gathered` receives them
  // back to back (malloc'ed; free with release) and `sizes[p]` the size of process p's
  // part. 0 on success; 1 when the parts exceed 2 GiB (MPI's int counts).
  int (*gather)(const char* data, uint64_t size, char** gathered, uint64_t* sizes);
  void (*release)(char* buffer);
  void (*finalize)(void);  // also collective: every process calls it
};

const AiprofClusterMpiApi* aiprof_cluster_mpi_api(void);
}
