// The MPI side of one `mpirun -n K aiprof cluster` process, on a thread of its own.
//
// MPI's start-up is long next to the work of one process: on the 2-core test machine
// OpenMPI 4.1's MPI_Init_thread takes ~0.25 s, nearly all of it waiting (docs/cluster.md,
// "MPI start-up"), and MPI_Finalize ~0.05 s. The session hides both. The launcher's
// environment already says which process this is (p) and how many there are (K), so the
// process parses its own first tickets of the work queue (p, p + K, p + 2K, ...) while
// MPI_Init runs on the session's thread; once MPI is up, the processes exchange how many
// such rounds each took, and the shared counter hands out first the tickets of those
// rounds that nobody took, then the rest, so no process is left with a share of its own.
// After the gather, process 0 merges and writes while the session's thread finalizes MPI.
//
// MPI calls never overlap: init, open_queue, the gather and finalize run on the session's
// thread (MPI's "main thread"), next_ticket on a parse thread only while that thread waits
// for the gather request.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cli/cluster_mpi_plugin.h"

namespace aiprof::cli {

// Where the launcher placed this process, from its environment (OpenMPI, PMIx, MPICH/PMI).
struct LauncherPlacement {
  int process = -1;           // this process's index; -1: the environment does not say
  int processes = 1;          // 1: not started by an MPI launcher
  int processes_on_host = 0;  // 0: the environment does not say (MPI will)
};

LauncherPlacement PlacementFromEnvironment();

class MpiSession {
 public:
  // Starts the session's thread, which calls MPI_Init_thread at once.
  MpiSession(const AiprofClusterMpiApi* mpi, const LauncherPlacement& placement);
  // Joins the session's thread; MPI is finalized there (after the gather, or at once
  // when Gather was not called).
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  // Waits until MPI is up and sets `placement` to where MPI says this process is; false,
  // with `error`, when MPI_Init failed.
  bool WaitUntilUp(LauncherPlacement* placement, std::string* error);

  // The work queue's next ticket (exporter::SummarizeOptions::next_ticket: calls are
  // serialised): this process's own tickets until MPI is up, then the shared counter's.
  // After a failed MPI_Init: UINT64_MAX (no more).
  uint64_t NextTicket();

  // Gathers every process's `packed` bytes to process 0 (collective), then lets the
  // session's thread finalize MPI without waiting for it. On process 0, `parts` receives
  // each process's bytes, in process order (valid while the session lives).
  bool Gather(const std::string& packed, std::vector<std::string_view>* parts, std::string* error);

 private:
  enum class Phase { kStarting, kAgreeing, kQueueOpen, kFailed };
  enum class Request { kNone, kGather, kQuit };

  void Run();  // the session's thread
  uint64_t OwnTicket(uint64_t round) const;

  const AiprofClusterMpiApi* mpi_;
  const LauncherPlacement placement_;
  std::mutex mutex_;
  std::condition_variable changed_;
  Phase phase_ = Phase::kStarting;
  Request request_ = Request::kNone;
  std::string error_;
  int process_ = 0, processes_ = 1, processes_on_host_ = 1;  // MPI's, once up
  uint64_t rounds_taken_ = 0;  // rounds of own tickets taken before the queue opened
  // Once the queue is open, its n-th ticket is untaken_[n], then queue_start_ + the rest.
  std::vector<uint64_t> untaken_;
  uint64_t queue_start_ = 0;
  const std::string* packed_ = nullptr;
  bool gathered_ = false;
  int gather_result_ = 0;  // the plugin's gather's
  char* gathered_bytes_ = nullptr;
  std::vector<uint64_t> gathered_sizes_;
  std::thread thread_;
};

}  // namespace aiprof::cli
