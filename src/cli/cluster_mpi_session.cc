#include "cli/cluster_mpi_session.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "cli/command.h"

namespace aiprof::cli {

namespace {

int EnvironmentInt(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::atoi(value) : -1;
}

// Seconds since `begin`, for the AIPROF_CLUSTER_MPI_TIMES line.
double Since(std::chrono::steady_clock::time_point begin) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
}

}  // namespace

LauncherPlacement PlacementFromEnvironment() {
  // Index, count and count on this host, each launcher family's own names.
  struct Names {
    const char *process, *processes, *on_host;
  };
  for (const Names& names :
       {Names{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE"},
        Names{"PMIX_RANK", "PMIX_SIZE", "PMIX_LOCAL_SIZE"},
        Names{"PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"}}) {
    const int processes = EnvironmentInt(names.processes);
    if (processes < 1) continue;
    const int process = EnvironmentInt(names.process);
    const int on_host = EnvironmentInt(names.on_host);
    LauncherPlacement placement;
    placement.processes = processes;
    placement.process = process >= 0 && process < processes ? process : -1;
    placement.processes_on_host = on_host >= 1 ? on_host : 0;
    return placement;
  }
  return {};
}

MpiSession::MpiSession(const AiprofClusterMpiApi* mpi, const LauncherPlacement& placement)
    : mpi_(mpi), placement_(placement), thread_([this] { Run(); }) {}

MpiSession::~MpiSession() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (request_ == Request::kNone) request_ = Request::kQuit;
  }
  changed_.notify_all();
  thread_.join();
  if (gathered_bytes_ != nullptr) mpi_->release(gathered_bytes_);
}

void MpiSession::Run() {
  const auto begin = std::chrono::steady_clock::now();
  int process = 0, processes = 1, on_host = 1;
  const bool up = mpi_->init(&process, &processes, &on_host) == 0;
  const double init_done = Since(begin);
  std::unique_lock<std::mutex> lock(mutex_);
  if (!up) {
    phase_ = Phase::kFailed;
    error_ = "MPI_Init failed; check the launcher's output above";
    changed_.notify_all();
    return;  // MPI allows no other call after a failed MPI_Init
  }
  if (placement_.process >= 0 &&
      (process != placement_.process || processes != placement_.processes)) {
    // Tickets were already taken as the environment's process: going on would parse some
    // ranks twice and others never. The launcher ends the other processes.
    std::fprintf(stderr,
                 "aiprof cluster: the launcher's environment says process %d of %d, MPI says "
                 "%d of %d; cannot split the ranks\n",
                 placement_.process, placement_.processes, process, processes);
    std::_Exit(kExitFailure);
  }
  process_ = process;
  processes_ = processes;
  processes_on_host_ = on_host;
  phase_ = Phase::kAgreeing;
  const uint64_t taken = rounds_taken_;
  changed_.notify_all();
  lock.unlock();
  std::vector<uint64_t> taken_by_process(static_cast<size_t>(processes));
  mpi_->open_queue(taken, taken_by_process.data());
  // The tickets of the first rounds that no process took before the queue opened come
  // first from the queue, in order, then those after the rounds any process took; the
  // order stays largest first and no process is left with a share of its own.
  uint64_t rounds = 0;
  for (uint64_t by_process : taken_by_process) rounds = std::max(rounds, by_process);
  std::vector<uint64_t> untaken;
  for (uint64_t round = 0; round < rounds; ++round) {
    for (int p = 0; p < processes; ++p) {
      if (round >= taken_by_process[static_cast<size_t>(p)])
        untaken.push_back(round * static_cast<uint64_t>(processes) + static_cast<uint64_t>(p));
    }
  }
  const double queue_open = Since(begin);
  lock.lock();
  untaken_ = std::move(untaken);
  queue_start_ = rounds * static_cast<uint64_t>(processes);
  phase_ = Phase::kQueueOpen;
  changed_.notify_all();
  changed_.wait(lock, [this] { return request_ != Request::kNone; });
  double gather_done = 0;
  if (request_ == Request::kGather) {
    lock.unlock();
    // Sleeps until every process has its summaries: OpenMPI's blocking gather would spin
    // on a core the processes still parsing need.
    mpi_->wait_for_all();
    std::vector<uint64_t> sizes(static_cast<size_t>(processes));
    char* bytes = nullptr;
    const int result = mpi_->gather(packed_->data(), packed_->size(), &bytes, sizes.data());
    gather_done = Since(begin);
    lock.lock();
    gather_result_ = result;
    gathered_bytes_ = bytes;
    gathered_sizes_ = std::move(sizes);
    gathered_ = true;
    changed_.notify_all();
  }
  lock.unlock();
  mpi_->finalize();
  if (std::getenv("AIPROF_CLUSTER_MPI_TIMES") != nullptr) {
    char gathered[32] = "no gather";
    if (gather_done > 0) std::snprintf(gathered, sizeof gathered, "gathered %.3f", gather_done);
    std::fprintf(stderr,
                 "aiprof cluster [MPI process %d/%d]: seconds since the session began: "
                 "MPI_Init done %.3f, queue open %.3f (%llu own round(s) taken before it), %s, "
                 "finalized %.3f\n",
                 process, processes, init_done, queue_open, static_cast<unsigned long long>(taken),
                 gathered, Since(begin));
  }
}

uint64_t MpiSession::OwnTicket(uint64_t round) const {
  return round * static_cast<uint64_t>(placement_.processes) +
         static_cast<uint64_t>(placement_.process);
}

bool MpiSession::WaitUntilUp(LauncherPlacement* placement, std::string* error) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return phase_ != Phase::kStarting; });
  if (phase_ == Phase::kFailed) {
    *error = error_;
    return false;
  }
  placement->process = process_;
  placement->processes = processes_;
  placement->processes_on_host = processes_on_host_;
  return true;
}

uint64_t MpiSession::NextTicket() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (phase_ == Phase::kStarting && placement_.process >= 0) return OwnTicket(rounds_taken_++);
  changed_.wait(lock, [this] { return phase_ == Phase::kQueueOpen || phase_ == Phase::kFailed; });
  if (phase_ == Phase::kFailed) return std::numeric_limits<uint64_t>::max();
  const std::vector<uint64_t>& untaken = untaken_;
  const uint64_t queue_start = queue_start_;
  lock.unlock();
  // The session's thread makes no MPI call until Gather, which comes after the last ticket.
  const uint64_t ticket = mpi_->next_ticket();
  return ticket < untaken.size() ? untaken[ticket] : queue_start + (ticket - untaken.size());
}

bool MpiSession::Gather(const std::string& packed, std::vector<std::string_view>* parts,
                        std::string* error) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return phase_ == Phase::kQueueOpen || phase_ == Phase::kFailed; });
  if (phase_ == Phase::kFailed) {
    *error = error_;
    return false;
  }
  packed_ = &packed;
  request_ = Request::kGather;
  changed_.notify_all();
  changed_.wait(lock, [this] { return gathered_; });
  if (gather_result_ != 0) {
    *error =
        "the summaries exceed 2 GiB together (MPI's message limit); run once per subset of the "
        "ranks or without mpirun";
    return false;
  }
  if (process_ == 0) {
    size_t offset = 0;
    for (uint64_t size : gathered_sizes_) {
      parts->emplace_back(gathered_bytes_ + offset, size);
      offset += size;
    }
  }
  return true;
}

}  // namespace aiprof::cli
