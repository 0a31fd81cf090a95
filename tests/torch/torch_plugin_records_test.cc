// What libaiprof_torch.so writes for real RecordFunctions: the usual operator as one
// kOpCompact, and those that do not fit it as a kOp that keeps every field: a sequence
// number beyond 32 bits, a backward operator naming its forward thread, and an operator
// longer than 2^32 clock ticks. Read back raw (which kind) and through the model (what is
// exported).
#include <ATen/record_function.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <unordered_map>

#include "aiprof/aiprof.h"
#include "aiprof/plugin.h"
#include "cli/cli_runner.h"
#include "format/reader.h"
#include "format/records_torch.h"
#include "model/parser.h"

namespace aiprof {
namespace {

namespace fs = std::filesystem;
using format::TorchKind;

// The plugin sits beside libaiprof.so in the build tree.
std::string LibraryDir() {
  Dl_info info{};
  dladdr(reinterpret_cast<void*>(&aiprofInit), &info);
  return fs::path(info.dli_fname).parent_path().string();
}

void RunOperator(const char* name, at::RecordScope scope, int64_t sequence_nr,
                 uint64_t forward_thread_id) {
  at::RecordFunction guard(scope);
  if (!guard.isActive()) return;
  if (forward_thread_id != 0) guard.setForwardThreadId(forward_thread_id);
  guard.before(name, sequence_nr);
}

// An operator that lasts until more than 2^32 ticks of the process clock have passed.
void RunLongOperator(const char* name) {
  at::RecordFunction guard(at::RecordScope::FUNCTION);
  if (!guard.isActive()) return;
  guard.before(name, 9);
  const uint64_t start = aiprof_now();
  while (aiprof_now() - start <= (uint64_t{1} << 32)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

struct WrittenOperator {
  uint8_t kind;
  uint64_t start, end;  // ticks
};

// Operator name -> how it was written, from the one runtime data file of `prof_dir`.
std::map<std::string, WrittenOperator> WrittenOperators(const std::string& prof_dir) {
  const fs::path file =
      fs::path(prof_dir) / "host" / "data" / ("aiprof." + std::to_string(getpid()) + ".data");
  format::RawFileReader reader;
  std::string error;
  EXPECT_TRUE(reader.Open(file.string(), &error)) << error;
  std::unordered_map<uint32_t, std::string> strings;
  std::map<std::string, WrittenOperator> written;
  reader.ForEachChunk([&](const format::ChunkView& chunk) {
    if (chunk.type == format::ChunkType::kStrings) {
      format::ForEachString(chunk.payload, [&](uint32_t id, std::string_view text) {
        strings[id] = std::string(text);
      });
    } else if (chunk.type == format::ChunkType::kEvents) {
      format::RecordCursor cursor(chunk.payload);
      format::RecordView record;
      while (cursor.Next(&record)) {
        if (record.kind() == format::ToKind(TorchKind::kOpCompact)) {
          const auto* word = record.ExtAs<format::TorchOpCompact>(0);
          written[strings[record.header->arg]] = {record.kind(), record.ts(),
                                                  format::UnpackTorchOpEnd(*word, record.ts())};
        } else if (record.kind() == format::ToKind(TorchKind::kOp)) {
          const auto* end = record.ExtAs<format::TorchOpEnd>(1);
          written[strings[record.header->arg]] = {record.kind(), record.ts(), end->end_ts};
        }
      }
    }
    return true;
  });
  return written;
}

// Slice name -> its arguments (integers only).
std::map<std::string, std::map<std::string, uint64_t>> OperatorArgs(const model::Model& m) {
  std::map<std::string, std::map<std::string, uint64_t>> args;
  for (uint32_t row = 0; row < m.slices.size(); ++row) {
    auto& of_slice = args[std::string(m.Str(m.slices.name[row]))];
    const uint32_t set = m.slices.args[row];
    for (uint32_t i = m.args.set_begin[set]; i < m.args.set_begin[set + 1]; ++i) {
      of_slice[std::string(m.Str(m.args.key[i]))] = m.args.value[i];
    }
  }
  return args;
}

TEST(TorchPluginRecords, CompactWhereItFitsAndKOpWithEveryFieldWhereNot) {
  const fs::path output =
      fs::path(::testing::TempDir()) / ("torch_plugin_records_" + std::to_string(getpid()));
  ASSERT_EQ(aiprofInit(output.c_str()), AIPROF_SUCCESS);
  void* plugin = dlopen((LibraryDir() + "/libaiprof_torch.so").c_str(), RTLD_NOW);
  ASSERT_NE(plugin, nullptr) << dlerror();
  auto attach = reinterpret_cast<int (*)()>(dlsym(plugin, "aiprof_torch_attach"));
  ASSERT_NE(attach, nullptr);
  ASSERT_EQ(attach(), 0);
  aiprofConfig* config = aiprofCreateConfig(nullptr, 0, AIPROF_TYPE_TASK_TIME);
  ASSERT_EQ(aiprofStart(config), AIPROF_SUCCESS);
  const uint64_t thread = at::RecordFunction::currentThreadId();
  const int64_t huge_sequence_nr = int64_t{1} << 40;
  RunOperator("test::forward", at::RecordScope::FUNCTION, 7, 0);
  RunOperator("test::no_sequence", at::RecordScope::FUNCTION, -1, 0);
  RunOperator("test::huge_sequence_nr", at::RecordScope::FUNCTION, huge_sequence_nr, 0);
  RunOperator("test::backward", at::RecordScope::BACKWARD_FUNCTION, 7, thread);
  RunLongOperator("test::long");
  ASSERT_EQ(aiprofStop(config), AIPROF_SUCCESS);
  aiprofDestroyConfig(config);

  std::vector<std::string> dirs;
  for (const auto& entry : fs::directory_iterator(output)) {
    if (entry.path().filename().string().starts_with("PROF_")) dirs.push_back(entry.path());
  }
  ASSERT_EQ(dirs.size(), 1u);
  const auto written = WrittenOperators(dirs[0]);
  ASSERT_EQ(written.size(), 5u);
  const uint8_t compact = format::ToKind(TorchKind::kOpCompact);
  const uint8_t full = format::ToKind(TorchKind::kOp);
  EXPECT_EQ(written.at("test::forward").kind, compact);
  EXPECT_EQ(written.at("test::no_sequence").kind, compact);
  EXPECT_EQ(written.at("test::huge_sequence_nr").kind, full);
  EXPECT_EQ(written.at("test::backward").kind, full);
  EXPECT_EQ(written.at("test::long").kind, full);
  EXPECT_GT(written.at("test::long").end - written.at("test::long").start, uint64_t{1} << 32);

  const model::Model m = model::ParseProfDir(dirs[0]);
  auto args = OperatorArgs(m);
  EXPECT_EQ(args["test::forward"]["Sequence number"], 7u);
  EXPECT_EQ(args["test::forward"]["Fwd thread id"], thread);
  EXPECT_EQ(args["test::no_sequence"].count("Sequence number"), 0u);
  EXPECT_EQ(args["test::huge_sequence_nr"]["Sequence number"],
            static_cast<uint64_t>(huge_sequence_nr));
  EXPECT_EQ(args["test::backward"]["Sequence number"], 7u);
  EXPECT_EQ(args["test::backward"]["Fwd thread id"], thread);
  EXPECT_EQ(args["test::long"]["Sequence number"], 9u);
  // Record ids: nonzero and distinct, whichever record carried them.
  std::map<uint64_t, std::string> ids;
  for (const auto& [name, of_slice] : args) {
    const uint64_t id = of_slice.at("External id");
    EXPECT_NE(id, 0u) << name;
    EXPECT_TRUE(ids.emplace(id, name).second) << name << " shares id " << id;
  }
  EXPECT_EQ(m.flows.size(), 1u);  // test::forward -> test::backward

  // aiprof-dump prints the compact record with the same fields as a kOp.
  const auto dump = testing::RunShell(testing::BuildDir() + "/bin/aiprof-dump " + dirs[0]);
  EXPECT_EQ(dump.exit_code, 0) << dump.output;
  EXPECT_NE(dump.output.find("torch_op_compact name=\"test::forward\" aux=0 record_id="),
            std::string::npos)
      << dump.output;
  EXPECT_NE(dump.output.find("sequence_nr=7 thread_id=" + std::to_string(thread) +
                             " forward_thread_id=0 end_ts="),
            std::string::npos)
      << dump.output;
  EXPECT_NE(dump.output.find("torch_op name=\"test::backward\" aux=1 record_id="),
            std::string::npos)
      << dump.output;
  fs::remove_all(output);
}

}  // namespace
}  // namespace aiprof
