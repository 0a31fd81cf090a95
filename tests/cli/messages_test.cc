// Messages that once said too little: each says what happened and what to do.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/cli_runner.h"

namespace aiprof::testing {
namespace {
namespace fs = std::filesystem;

TEST(Messages, ClusterJobsZeroSaysWhatToGive) {
  CommandResult result = RunAiprof("cluster -d /tmp --jobs=0");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("give 1 or more, or leave --jobs out"), std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("1.79"), std::string::npos) << result.output;
}

// `aiprof ui` on a damaged raw file loads what is intact and says what was not.
TEST(Messages, UiOnACorruptRawFileWarns) {
  char pattern[] = "/tmp/aiprof_messages_XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string out = pattern;
  CommandResult collected = RunAiprof("--output=" + out + " --export=off --msproftx=on " +
                                      BuildDir() + "/bin/launch_test_app exit 0");
  ASSERT_EQ(collected.exit_code, 0) << collected.output;
  fs::path data;
  for (const auto& entry : fs::recursive_directory_iterator(out)) {
    if (entry.path().filename().string().rfind("aiprof.", 0) == 0) data = entry.path();
  }
  ASSERT_FALSE(data.empty());
  {
    // Garbage over the chunks after the file header (64 bytes).
    std::fstream file(data, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(64);
    const std::string garbage(256, '\x5a');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  const std::string log = out + "/ui.log";
  CommandResult result =
      RunShell(BuildDir() + "/bin/aiprof ui " + out + " --no-browser --port 0 > " + log +
               " 2>&1 & ui=$!; for i in $(seq 600); do grep -q 'serving' " + log +
               " && break; sleep 0.05; done; kill $ui; wait $ui; cat " + log);
  EXPECT_NE(result.output.find("aiprof ui: " + data.string() + ": "), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("corrupt chunk header"), std::string::npos) << result.output;
  fs::remove_all(out);
}

}  // namespace
}  // namespace aiprof::testing
