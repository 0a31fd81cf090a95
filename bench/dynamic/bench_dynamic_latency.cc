// Dynamic start latency: from the moment `start` is written to a job's control socket to
// the first event recorded in the new window, over N start/stop tries (default 50). The job
// marks every ~50 us with its CLOCK_MONOTONIC time as the message, so the earliest mark of
// each PROF_* directory says when collection really began. Also reports the time until the
// `ok` reply. Usage: bench_dynamic_latency [--tries=N] (other arguments are ignored, so
// scripts/bench.sh can pass its Google Benchmark flags).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cli/dynamic_client.h"
#include "dynamic/prof_contents.h"

namespace {

int64_t MonotonicNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000LL + now.tv_nsec;
}

void Report(const char* what, std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  double median =
      ms.size() % 2 ? ms[ms.size() / 2] : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
  std::printf("%-34s median %8.3f ms   p90 %8.3f ms   max %8.3f ms   (n=%zu)\n", what, median,
              ms[ms.size() * 9 / 10], ms.back(), ms.size());
}

}  // namespace

int main(int argc, char** argv) {
  int tries = 50;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--tries=", 8) == 0)
      tries = std::max(1, std::min(50, std::atoi(argv[i] + 8)));
  }
  namespace fs = std::filesystem;
  std::string self_dir = fs::read_symlink("/proc/self/exe").parent_path().string();
  char pattern[] = "/tmp/aiprof_latency_XXXXXX";
  std::string work = mkdtemp(pattern);
  std::string output = work + "/out";
  setenv("XDG_RUNTIME_DIR", work.c_str(), 1);

  int to_job[2], from_job[2];
  if (pipe(to_job) != 0 || pipe(from_job) != 0) return 1;
  pid_t job = fork();
  if (job == 0) {
    dup2(to_job[0], STDIN_FILENO);
    dup2(from_job[1], STDOUT_FILENO);
    close(to_job[1]);
    close(from_job[0]);
    setenv("AIPROF_MODE", "dynamic", 1);
    std::string path = self_dir + "/dynamic_latency_job";
    execl(path.c_str(), path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(to_job[0]);
  close(from_job[1]);
  std::string socket = work + "/aiprof_dynamic_" + std::to_string(job);
  aiprof::cli::ControlConnection connection;
  std::string error;
  for (int attempt = 0; attempt < 2000 && !connection.Connect(socket, error); ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (connection.closed()) {
    std::fprintf(stderr, "bench_dynamic_latency: cannot reach the job: %s\n", error.c_str());
    return 1;
  }
  std::vector<int64_t> sent_ns;
  std::vector<double> reply_ms;
  for (int i = 0; i < tries; ++i) {
    int64_t sent = MonotonicNs();
    std::string reply = connection.Send("start output=" + output + " msproftx=on");
    reply_ms.push_back((MonotonicNs() - sent) / 1e6);
    if (reply.rfind("ok:", 0) != 0) {
      std::fprintf(stderr, "bench_dynamic_latency: start: %s\n", reply.c_str());
      return 1;
    }
    sent_ns.push_back(sent);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (connection.Send("stop").rfind("ok:", 0) != 0) return 1;
  }
  connection.Close();
  close(to_job[1]);
  waitpid(job, nullptr, 0);

  std::vector<std::string> dirs = aiprof::testing::ListProfDirs(output);
  if (dirs.size() != sent_ns.size()) {
    std::fprintf(stderr, "bench_dynamic_latency: %zu windows for %zu starts\n", dirs.size(),
                 sent_ns.size());
    return 1;
  }
  std::vector<double> first_event_ms;
  for (size_t i = 0; i < dirs.size(); ++i) {
    int64_t first = INT64_MAX;
    for (const std::string& mark : aiprof::testing::ReadProfDir(dirs[i]).marks) {
      if (mark.rfind("tick ", 0) == 0)
        first = std::min<int64_t>(first, std::atoll(mark.c_str() + 5));
    }
    if (first == INT64_MAX) {
      std::fprintf(stderr, "bench_dynamic_latency: no event in %s\n", dirs[i].c_str());
      return 1;
    }
    first_event_ms.push_back((first - sent_ns[i]) / 1e6);
  }
  Report("start sent -> ok reply", reply_ms);
  Report("start sent -> first recorded event", first_event_ms);
  fs::remove_all(work);
  return 0;
}
