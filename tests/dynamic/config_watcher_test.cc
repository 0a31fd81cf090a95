#include "runtime/dynamic/config_watcher.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <vector>

#include "temp_dir.h"

namespace aiprof::dynamic {
namespace {

// Collects what the watcher delivers; waits are bounded only to fail instead of hanging.
struct Deliveries {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::string> contents;

  void Add(const std::string& text) {
    std::lock_guard lock(mutex);
    contents.push_back(text);
    changed.notify_all();
  }
  bool WaitFor(size_t count) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, std::chrono::seconds(20),
                            [&] { return contents.size() >= count; });
  }
};

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

void ExpectEditsSeen(bool force_polling) {
  testing::TempDir dir;
  std::string path = dir.path() + "/profiler_config.json";
  WriteFile(path, "initial");
  Deliveries deliveries;
  ConfigWatcher watcher;
  std::string error;
  ASSERT_TRUE(watcher.Start(
      path, [&](const std::string& text) { deliveries.Add(text); }, force_polling, error));
  EXPECT_EQ(watcher.using_inotify(), !force_polling);
  WriteFile(dir.path() + "/unrelated.json", "ignored");
  WriteFile(path, "first edit");
  ASSERT_TRUE(deliveries.WaitFor(1));
  // An editor's write-then-rename is seen as well.
  WriteFile(path + ".swp", "second edit, longer");
  std::rename((path + ".swp").c_str(), path.c_str());
  ASSERT_TRUE(deliveries.WaitFor(2));
  watcher.Stop();
  std::lock_guard lock(deliveries.mutex);
  EXPECT_EQ(deliveries.contents.front(), "first edit");
  EXPECT_EQ(deliveries.contents.back(), "second edit, longer");
  for (const std::string& text : deliveries.contents) EXPECT_NE(text, "ignored");
}

TEST(ConfigWatcher, InotifySeesWritesAndRenames) {
  ExpectEditsSeen(false);
}

TEST(ConfigWatcher, PollingFallbackSeesWritesAndRenames) {
  ExpectEditsSeen(true);
}

}  // namespace
}  // namespace aiprof::dynamic
