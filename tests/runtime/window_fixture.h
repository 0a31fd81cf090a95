// Opens a collection window through the public control API around a test body and loads
// what the runtime wrote.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "aiprof/aiprof.h"
#include "runtime/raw_data.h"

namespace aiprof::testing {

using OptionList = std::vector<std::pair<std::string, std::string>>;

// Runs `body` inside one window; returns the PROF_* directory ("" on failure, test failed).
inline std::string RunWindow(const std::string& name, const OptionList& options,
                             const std::function<void()>& body) {
  std::string output = MakeTempDir(name);
  EXPECT_EQ(aiprofInit(output.c_str()), AIPROF_SUCCESS);
  aiprofConfig* config = aiprofCreateConfig(nullptr, 0, AIPROF_TYPE_DEFAULT);
  EXPECT_NE(config, nullptr);
  for (const auto& [key, value] : options) {
    EXPECT_EQ(aiprofConfigSetOption(config, key.c_str(), value.c_str()), AIPROF_SUCCESS)
        << aiprofLastError();
  }
  aiprofError started = aiprofStart(config);
  EXPECT_EQ(started, AIPROF_SUCCESS) << aiprofLastError();
  if (started != AIPROF_SUCCESS) {
    aiprofDestroyConfig(config);
    return "";
  }
  body();
  EXPECT_EQ(aiprofStop(config), AIPROF_SUCCESS);
  aiprofDestroyConfig(config);
  return aiprofCurrentDir();
}

}  // namespace aiprof::testing
