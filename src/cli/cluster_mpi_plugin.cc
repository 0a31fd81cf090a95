// libaiprof_cluster_mpi.so (cluster_mpi_plugin.h): the MPI calls of `mpirun -n K aiprof
// cluster`, and nothing else.
#include "cli/cluster_mpi_plugin.h"

#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <ctime>
#include <vector>

namespace {

MPI_Win ticket_window = MPI_WIN_NULL;

int Init(int* process, int* processes, int* processes_on_host) {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS ||
      provided < MPI_THREAD_SERIALIZED)
    return 1;
  MPI_Comm_rank(MPI_COMM_WORLD, process);
  MPI_Comm_size(MPI_COMM_WORLD, processes);
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, *process, MPI_INFO_NULL, &host);
  MPI_Comm_size(host, processes_on_host);
  MPI_Comm_free(&host);
  return 0;
}

void OpenQueue(uint64_t rounds_taken, uint64_t* rounds_taken_by_process) {
  unsigned long long mine = rounds_taken;
  int me = 0, processes = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &processes);
  std::vector<unsigned long long> all(static_cast<size_t>(processes));
  MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all.data(), 1, MPI_UNSIGNED_LONG_LONG,
                MPI_COMM_WORLD);
  for (int p = 0; p < processes; ++p) rounds_taken_by_process[p] = all[static_cast<size_t>(p)];
  // The ticket counter lives in process 0's window; the others reach it with passive-target
  // atomics, so process 0 need not answer requests while it parses.
  uint64_t* counter = nullptr;
  MPI_Win_allocate(me == 0 ? sizeof(uint64_t) : 0, sizeof(uint64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                   &counter, &ticket_window);
  if (me == 0) *counter = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, ticket_window);
}

uint64_t NextTicket() {
  const uint64_t one = 1;
  uint64_t ticket = 0;
  MPI_Fetch_and_op(&one, &ticket, MPI_UINT64_T, 0, 0, MPI_SUM, ticket_window);
  MPI_Win_flush(0, ticket_window);
  return ticket;
}

void WaitForAll() {
  MPI_Request request;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  const timespec pause{0, 1'000'000};  // 1 ms: negligible against seconds of parsing
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    nanosleep(&pause, nullptr);
  }
}

int Gather(const char* data, uint64_t size, char** gathered, uint64_t* sizes) {
  int me = 0, processes = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &processes);
  unsigned long long mine = size;
  std::vector<unsigned long long> all(me == 0 ? processes : 0);
  MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all.data(), 1, MPI_UNSIGNED_LONG_LONG, 0,
             MPI_COMM_WORLD);
  // Every process learns whether the parts fit MPI's int counts, so all take the same path.
  int fits = 1;
  std::vector<int> counts, displacements;
  if (me == 0) {
    unsigned long long total = 0;
    for (int p = 0; p < processes; ++p) {
      sizes[p] = all[p];
      counts.push_back(static_cast<int>(all[p]));
      displacements.push_back(static_cast<int>(total));
      total += all[p];
    }
    fits = total <= static_cast<unsigned long long>(INT_MAX);
  }
  MPI_Bcast(&fits, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!fits) return 1;
  char* buffer = nullptr;
  if (me == 0) {
    const size_t total = displacements.empty() ? 0 : displacements.back() + counts.back();
    buffer = static_cast<char*>(std::malloc(total > 0 ? total : 1));
  }
  MPI_Gatherv(data, static_cast<int>(size), MPI_BYTE, buffer, counts.data(), displacements.data(),
              MPI_BYTE, 0, MPI_COMM_WORLD);
  if (me == 0) *gathered = buffer;
  return 0;
}

void Release(char* buffer) {
  std::free(buffer);
}

void Finalize() {
  if (ticket_window != MPI_WIN_NULL) {
    MPI_Win_unlock_all(ticket_window);
    MPI_Win_free(&ticket_window);
  }
  MPI_Finalize();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const AiprofClusterMpiApi* aiprof_cluster_mpi_api(
    void) {
  static const AiprofClusterMpiApi api{kAiprofClusterMpiAbi, Init,   OpenQueue, NextTicket,
                                       WaitForAll,           Gather, Release,   Finalize};
  return &api;
}
