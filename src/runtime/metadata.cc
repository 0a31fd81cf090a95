#include "runtime/metadata.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string_view>

#include "format/output_layout.h"
#include "runtime/owned_fd.h"

extern char** environ;

namespace aiprof::runtime {

namespace {

std::string CpuModel() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "";
}

std::string ExecutablePath() {
  char path[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) return "";
  return std::string(path, static_cast<size_t>(length));
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// /proc/self/exe or /proc/<pid>/exe: how programs re-execute themselves.
bool IsProcExeLink(const std::string& path) {
  constexpr std::string_view kPrefix = "/proc/", kSuffix = "/exe";
  if (path.size() <= kPrefix.size() + kSuffix.size() || path.rfind(kPrefix, 0) != 0 ||
      path.compare(path.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
    return false;
  }
  std::string middle = path.substr(kPrefix.size(), path.size() - kPrefix.size() - kSuffix.size());
  return middle == "self" || middle.find_first_not_of("0123456789") == std::string::npos;
}

// The command line, with an argv[0] of /proc/self/exe replaced by the executable it names,
// so the process is shown by its real program.
nlohmann::json CommandLine() {
  nlohmann::json args = nlohmann::json::array();
  std::ifstream file("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  while (std::getline(file, arg, '\0')) {
    if (args.empty() && IsProcExeLink(arg)) {
      std::string real = ExecutablePath();
      if (!real.empty()) arg = real;
    }
    args.push_back(arg);
  }
  return args;
}

// The environment variables kept with the data (the only list: the database's META_DATA
// and the Python API's profiler_metadata.json read what is recorded here): the job's
// place (ranks, launcher), and what affects performance (threads, allocator, collectives),
// torch_npu's sampled variables (ASCEND_GLOBAL_LOG_LEVEL, HCCL_RDMA_TC/SL,
// ACLNN_CACHE_LIMIT) among them.
bool KeptEnvironmentName(const std::string& name) {
  static const char* const kNames[] = {"OMP_NUM_THREADS",
                                       "MKL_NUM_THREADS",
                                       "CUDA_VISIBLE_DEVICES",
                                       "CUDA_LAUNCH_BLOCKING",
                                       "PYTORCH_CUDA_ALLOC_CONF",
                                       "NCCL_DEBUG",
                                       "NCCL_IB_DISABLE",
                                       "NCCL_P2P_DISABLE",
                                       "NCCL_SOCKET_IFNAME",
                                       "NCCL_ALGO",
                                       "NCCL_PROTO",
                                       "TORCH_NCCL_ASYNC_ERROR_HANDLING",
                                       "TORCH_DISTRIBUTED_DEBUG",
                                       "ASCEND_GLOBAL_LOG_LEVEL",
                                       "HCCL_RDMA_TC",
                                       "HCCL_RDMA_SL",
                                       "ACLNN_CACHE_LIMIT",
                                       "RANK",
                                       "LOCAL_RANK",
                                       "WORLD_SIZE",
                                       "LOCAL_WORLD_SIZE",
                                       "MASTER_ADDR",
                                       "MASTER_PORT",
                                       "OMPI_COMM_WORLD_RANK",
                                       "OMPI_COMM_WORLD_SIZE",
                                       "OMPI_COMM_WORLD_LOCAL_RANK",
                                       "OMPI_COMM_WORLD_LOCAL_SIZE",
                                       "SLURM_PROCID",
                                       "SLURM_NTASKS",
                                       "SLURM_LOCALID",
                                       "SLURM_NTASKS_PER_NODE",
                                       "SLURM_NODEID",
                                       "SLURM_JOB_ID"};
  if (name.rfind("AIPROF_", 0) == 0) return true;
  for (const char* kept : kNames) {
    if (name == kept) return true;
  }
  return false;
}

nlohmann::json Environment() {
  nlohmann::json environment = nlohmann::json::object();
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const char* equals = std::strchr(*entry, '=');
    if (equals == nullptr) continue;
    std::string name(*entry, static_cast<size_t>(equals - *entry));
    if (KeptEnvironmentName(name)) environment[name] = equals + 1;
  }
  return environment;
}

nlohmann::json IntFromEnvironment(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    char* end = nullptr;
    long parsed = std::strtol(value, &end, 10);
    if (end != value && *end == '\0') return parsed;
  }
  return nullptr;
}

std::string RandomAlnum(size_t length) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char bytes[64];
  if (getrandom(bytes, length, 0) != static_cast<ssize_t>(length)) {
    uint64_t seed = static_cast<uint64_t>(time(nullptr)) ^ (static_cast<uint64_t>(getpid()) << 20);
    for (size_t i = 0; i < length; ++i) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      bytes[i] = static_cast<unsigned char>(seed >> 33);
    }
  }
  std::string text;
  for (size_t i = 0; i < length; ++i) text += kAlphabet[bytes[i] % (sizeof kAlphabet - 1)];
  return text;
}

int64_t NextFreeSeq(const std::string& output) {
  int64_t largest = 0;
  DIR* dir = opendir(output.c_str());
  if (dir == nullptr) return 1;
  while (dirent* entry = readdir(dir)) {
    int seq = 0;
    if (std::sscanf(entry->d_name, "PROF_%6d_", &seq) == 1 && seq > largest) largest = seq;
  }
  closedir(dir);
  return largest + 1;
}

std::string LocalTimestampMs() {
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  tm local;
  localtime_r(&now.tv_sec, &local);
  char text[96];
  std::snprintf(text, sizeof text, "%04d%02d%02d%02d%02d%02d%03ld", local.tm_year + 1900,
                local.tm_mon + 1, local.tm_mday, local.tm_hour, local.tm_min, local.tm_sec,
                now.tv_nsec / 1000000);
  return text;
}

}  // namespace

nlohmann::json ProcessMetadata() {
  char hostname[256] = {};
  gethostname(hostname, sizeof hostname - 1);
  nlohmann::json metadata = {
      {"pid", getpid()},
      {"ppid", getppid()},
      {"hostname", hostname},
      {"cmdline", CommandLine()},
      {"exe", BaseName(ExecutablePath())},
      {"exe_path", ExecutablePath()},
      {"cpu_model", CpuModel()},
      {"cpu_count", sysconf(_SC_NPROCESSORS_ONLN)},
      // MemTotal: the capacity host memory peaks are judged against (advice's memory rule).
      {"mem_total_bytes", static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE)},
      {"rank", IntFromEnvironment({"RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"})},
      {"local_rank",
       IntFromEnvironment({"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"})},
      {"world_size", IntFromEnvironment({"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS"})},
      // Slurm's SLURM_TASKS_PER_NODE may read "2(x3)": only a plain count is taken.
      {"local_world_size", IntFromEnvironment({"LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE",
                                               "SLURM_NTASKS_PER_NODE", "SLURM_TASKS_PER_NODE"})},
      {"environment", Environment()},
  };
  return metadata;
}

void CorrectExecutableName(char name[16]) {
  if (std::strcmp(name, "exe") != 0) return;
  std::string real = BaseName(ExecutablePath());
  if (real.empty()) return;
  std::snprintf(name, 16, "%s", real.c_str());
}

bool MakeDirectories(const std::string& path, std::string* error) {
  std::string partial;
  std::stringstream parts(path);
  std::string part;
  if (!path.empty() && path[0] == '/') partial = "/";
  while (std::getline(parts, part, '/')) {
    if (part.empty()) continue;
    partial += part;
    if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
      *error = "cannot create directory '" + partial + "': " + std::strerror(errno);
      return false;
    }
    partial += '/';
  }
  return true;
}

bool CreateProfDir(const std::string& output, int64_t seq, std::string* dir, std::string* error) {
  if (!MakeDirectories(output, error)) return false;
  for (int attempt = 0; attempt < 100; ++attempt) {
    int64_t number = seq >= 0 ? seq : NextFreeSeq(output);
    char name[96];
    std::snprintf(name, sizeof name, "%s%06lld_%s_%s", format::kProfDirPrefix,
                  static_cast<long long>(number), LocalTimestampMs().c_str(),
                  RandomAlnum(16).c_str());
    std::string path = output + "/" + name;
    if (mkdir(path.c_str(), 0755) == 0) {
      char resolved[PATH_MAX];
      *dir = realpath(path.c_str(), resolved) != nullptr ? resolved : path;
      return MakeDirectories(path + "/" + format::kHostDataDir, error);
    }
    if (errno != EEXIST) {
      *error = "cannot create directory '" + path + "': " + std::strerror(errno);
      return false;
    }
  }
  *error = "cannot find a free PROF_* name in '" + output + "'";
  return false;
}

bool WriteFileAtomically(const std::string& path, const std::string& content, std::string* error) {
  std::string temporary = path + ".tmp." + std::to_string(getpid());
  OwnedFd file = OwnedFd::Open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!file.valid()) {
    *error = "cannot write '" + temporary + "': " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  int write_errno = 0;
  bool ours = file.Use([&](int fd) {
    while (done < content.size()) {
      ssize_t written = write(fd, content.data() + done, content.size() - done);
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) {
        write_errno = written < 0 ? errno : ENOSPC;
        return;
      }
      done += static_cast<size_t>(written);
    }
  });
  file.Close();
  if (!ours || done < content.size()) {
    *error = "cannot write '" + temporary +
             "': " + (ours ? std::strerror(write_errno) : "the program took its descriptor over");
    unlink(temporary.c_str());
    return false;
  }
  if (rename(temporary.c_str(), path.c_str()) != 0) {
    *error = "cannot rename '" + temporary + "' to '" + path + "': " + std::strerror(errno);
    unlink(temporary.c_str());
    return false;
  }
  return true;
}

}  // namespace aiprof::runtime
