#include "sources/host/prof_dirs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <random>

#include "format/output_layout.h"

namespace aiprof::host {
namespace fs = std::filesystem;

std::vector<std::string> ListProfDirs(const std::string& output_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(output_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind(format::kProfDirPrefix, 0) == 0 && it->is_directory(ec)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string FindProcessDir(const std::string& output_dir, const std::set<std::string>& ignore,
                           int pid) {
  const std::string file = format::RuntimeDataFile(pid);
  for (const std::string& name : ListProfDirs(output_dir)) {
    if (ignore.count(name)) continue;
    std::string dir = output_dir + "/" + name;
    if (access((dir + "/" + file).c_str(), F_OK) == 0) return dir;
  }
  return "";
}

bool MakeDirs(const std::string& path, std::string* error) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) {
    *error = "cannot create directory '" + path + "': " + ec.message();
    return false;
  }
  return true;
}

std::string CreateProfDir(const std::string& output_dir, std::string* error) {
  long highest = 0;
  for (const std::string& name : ListProfDirs(output_dir)) {
    highest = std::max(highest, std::strtol(name.c_str() + 5, nullptr, 10));
  }
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm local{};
  localtime_r(&seconds, &local);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &local);
  static constexpr char kAlnum[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::random_device random;
  std::string suffix;
  for (int i = 0; i < 16; ++i) suffix += kAlnum[random() % (sizeof(kAlnum) - 1)];
  char name[96];
  std::snprintf(name, sizeof(name), "PROF_%06ld_%s%03d_%s", highest + 1, stamp,
                static_cast<int>(millis.count()), suffix.c_str());
  std::string dir = output_dir + "/" + name;
  if (!MakeDirs(dir + "/host/data", error)) return "";
  return dir;
}

}  // namespace aiprof::host
