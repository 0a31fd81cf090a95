// The parser on hostile raw files (hostile_inputs.h): no crash, and memory in proportion to
// the file, checked in a child process whose address space is capped.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "model/hostile_inputs.h"
#include "model/parser.h"

namespace aiprof::testing {
namespace {

model::Model ParseFramed(const std::vector<uint8_t>& input) {
  std::vector<uint8_t> image = FrameRawFile(input.data(), input.size());
  int fd = memfd_create("aiprof_hostile", MFD_CLOEXEC);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, image.data(), image.size()), static_cast<ssize_t>(image.size()));
  model::Model parsed = model::ParseFiles({"/proc/self/fd/" + std::to_string(fd)}, {1});
  close(fd);
  return parsed;
}

bool HasMarkNamed(const model::Model& m, const std::string& name) {
  for (size_t row = 0; row < m.instants.size(); ++row) {
    if (m.Str(m.instants.name[row]) == name) return true;
  }
  return false;
}

TEST(HostileFiles, EveryShapeParses) {
  for (const HostileInput& input : HostileInputs()) {
    SCOPED_TRACE(input.name);
    model::Model parsed = ParseFramed(input.bytes);
    EXPECT_EQ(parsed.files.size(), 1u);
  }
}

TEST(HostileFiles, StringIdsNearTheTopOfTheRangeStillNameTheirRecords) {
  for (uint32_t id : {0xFFFFFFFFu, 0xFFFFFFFEu, 0x80000000u}) {
    SCOPED_TRACE(id);
    model::Model parsed = ParseFramed(StringIdFile(id));
    EXPECT_TRUE(HasMarkNamed(parsed, "hostile id"));
  }
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// A 1 KB file may not cost gigabytes: parsed in a child limited to 1 GiB of address space
// (the parser needs far less), which dies if the parser sizes a table by an id.
TEST(HostileFiles, MemoryFollowsTheFileNotItsIds) {
  if (kSanitized) GTEST_SKIP() << "sanitizers reserve more address space than the cap";
  for (uint32_t id : {0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu}) {
    std::vector<uint8_t> input = StringIdFile(id);
    pid_t child = fork();
    if (child == 0) {
      rlimit cap{1ull << 30, 1ull << 30};
      setrlimit(RLIMIT_AS, &cap);
      model::Model parsed = ParseFramed(input);
      _exit(HasMarkNamed(parsed, "hostile id") ? 0 : 3);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "id " << id << ": " << (WIFSIGNALED(status) ? "killed by signal " : "exit ")
        << (WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  }
}

}  // namespace
}  // namespace aiprof::testing
