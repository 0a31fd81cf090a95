// The torch importer on a hand-built raw file: a forward op with shapes inside a module
// and a Python frame, its backward op (fwdbwd flow), a record_function range, allocator
// events and a GC.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "export/csv/framework_summaries.h"
#include "format/records_torch.h"
#include "model/parser.h"
#include "support/raw_data_builder.h"

namespace aiprof {
namespace {

using format::TorchInputDescriptor;
using format::TorchInputTag;
using format::TorchKind;

constexpr uint32_t kPid = 777, kTid = 11;
constexpr uint64_t kBase = 1'000'000;
constexpr int64_t kRealtimeOffset = 1'700'000'000'000'000'000;

struct OpBegin {
  format::TorchOpIds ids;
  format::TorchOpThreads threads;
  uint64_t inputs[8];
};

std::string WriteTorchProfDir(const std::string& parent) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(parent) / "PROF_000001_20260101000000000_TORCHIMPORTER0001";
  fs::create_directories(dir / "host" / "data");
  const std::string metadata = testing::MetadataJson(
      kPid, "node1", false, 0, 0, kRealtimeOffset + kBase, kRealtimeOffset + kBase + 10'000);
  testing::RawProcessWriter w((dir / "host" / "data" / "aiprof.777.data").string(), kPid, metadata);
  w.ClockSync(kBase, kBase, kRealtimeOffset + kBase);
  auto& t = w.Thread(kTid);
  auto kind = [](TorchKind k) { return format::ToKind(k); };
  t.Add(kind(TorchKind::kPyCall), kBase + 100, 0, w.Intern("train.py(10): step"));
  t.Add(kind(TorchKind::kModuleBegin), kBase + 150, 0, w.Intern("nn.Module: Linear_0"));
  // aten::addmm(bias[64], input[16,32], weight[32,64], beta=1, alpha=1), seq 5 on torch thread 1.
  OpBegin addmm{{41, 5}, {0, 1}, {}};
  uint64_t values[] = {TorchInputDescriptor(TorchInputTag::kTensor, 6, 1),
                       64,
                       TorchInputDescriptor(TorchInputTag::kTensor, 6, 2),
                       16,
                       32,
                       TorchInputDescriptor(TorchInputTag::kTensor, 6, 2),
                       32,
                       64};
  std::memcpy(addmm.inputs, values, sizeof(values));
  t.AddWith(kind(TorchKind::kOpBegin), kBase + 200, 0, w.Intern("aten::addmm"), addmm);
  format::TorchMemoryBlock block{0x1000, 4096};
  format::TorchMemoryTotals totals{4096, 8192};
  struct {
    format::TorchMemoryBlock block;
    format::TorchMemoryTotals totals;
  } alloc{block, totals}, release{{0x1000, -4096}, {0, 8192}};
  t.AddWith(kind(TorchKind::kMemory), kBase + 250, 0, 0, alloc);
  t.Add(kind(TorchKind::kOpEnd), kBase + 400, 0, 41);
  t.Add(kind(TorchKind::kModuleEnd), kBase + 450, 0, 0);
  t.Add(kind(TorchKind::kPyReturn), kBase + 500, 0, 0);
  struct {
    format::TorchOpIds ids;
    format::TorchOpThreads threads;
  } range{{42, -1}, {0, 1}}, backward{{43, 5}, {1, 1}};
  t.AddWith(kind(TorchKind::kOpBegin), kBase + 600, 7, w.Intern("ProfilerStep#3"), range);
  t.AddWith(kind(TorchKind::kOpBegin), kBase + 700, 0,
            w.Intern("autograd::engine::evaluate_function: AddmmBackward0"), backward);
  t.AddWith(kind(TorchKind::kMemory), kBase + 800, 0, 0, release);
  t.Add(kind(TorchKind::kOpEnd), kBase + 900, 0, 43);
  format::TorchGc gc{kBase + 980, 12, 0};
  t.AddWith(kind(TorchKind::kGc), kBase + 950, 0, 2, gc);
  t.Add(kind(TorchKind::kOpEnd), kBase + 1000, 7, 42);
  w.ClockSync(kBase + 10'000, kBase + 10'000, kRealtimeOffset + kBase + 10'000);
  w.Close();
  return dir.string();
}

class TorchImporterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(::testing::TempDir() + "/torch_importer_" + std::to_string(getpid()));
    model_ = new model::Model(model::ParseProfDir(WriteTorchProfDir(*dir_)));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete model_;
    delete dir_;
  }
  static uint32_t Slice(std::string_view name) {
    for (uint32_t row = 0; row < model_->slices.size(); ++row) {
      if (model_->Str(model_->slices.name[row]) == name) return row;
    }
    ADD_FAILURE() << "no slice " << name;
    return 0;
  }
  static std::string Arg(uint32_t slice, std::string_view key) {
    const auto& args = model_->args;
    const uint32_t set = model_->slices.args[slice];
    for (uint32_t i = args.set_begin[set]; i < args.set_begin[set + 1]; ++i) {
      if (model_->Str(args.key[i]) != key) continue;
      switch (args.type[i]) {
        case model::ArgType::kString:
        case model::ArgType::kJson:
          return std::string(model_->Str(static_cast<model::StringId>(args.value[i])));
        case model::ArgType::kInt:
          return std::to_string(static_cast<int64_t>(args.value[i]));
        default:
          return std::to_string(args.value[i]);
      }
    }
    return "<missing>";
  }
  static std::string* dir_;
  static model::Model* model_;
};
std::string* TorchImporterTest::dir_ = nullptr;
model::Model* TorchImporterTest::model_ = nullptr;

TEST_F(TorchImporterTest, OperatorsAreCpuOpSlicesWithKinetoArgs) {
  const uint32_t addmm = Slice("aten::addmm");
  EXPECT_EQ(model_->Str(model_->slices.category[addmm]), "cpu_op");
  EXPECT_EQ(model_->slices.ts[addmm], kRealtimeOffset + kBase + 200);
  EXPECT_EQ(model_->slices.dur(addmm), 200);
  EXPECT_EQ(Arg(addmm, "External id"), "41");
  EXPECT_EQ(Arg(addmm, "Sequence number"), "5");
  EXPECT_EQ(Arg(addmm, "Fwd thread id"), "1");
  EXPECT_EQ(Arg(addmm, "Input Dims"), "[[64], [16, 32], [32, 64]]");
  EXPECT_EQ(Arg(addmm, "Input type"), R"(["float", "float", "float"])");
  EXPECT_EQ(Arg(addmm, "Call stack"), "train.py(10): step");
  EXPECT_EQ(Arg(addmm, "Module Hierarchy"), "Linear_0");
  EXPECT_EQ(model_->Str(model_->slices.category[Slice("ProfilerStep#3")]), "user_annotation");
  EXPECT_EQ(model_->Str(model_->slices.category[Slice("train.py(10): step")]), "python_function");
  EXPECT_EQ(model_->Str(model_->slices.category[Slice("GC")]), "gc");
  EXPECT_EQ(model_->slices.dur(Slice("GC")), 30);
}

TEST_F(TorchImporterTest, ForwardLinksToBackward) {
  ASSERT_EQ(model_->flows.size(), 1u);
  EXPECT_EQ(model_->Str(model_->flows.category[0]), "fwdbwd");
  EXPECT_EQ(model_->flows.from_slice[0], Slice("aten::addmm"));
  EXPECT_EQ(model_->flows.to_slice[0],
            Slice("autograd::engine::evaluate_function: AddmmBackward0"));
}

TEST_F(TorchImporterTest, MemoryEventsAreInstantsAndCounters) {
  int memory_instants = 0;
  for (uint32_t row = 0; row < model_->instants.size(); ++row) {
    memory_instants += model_->Str(model_->instants.name[row]) == "[memory]";
  }
  EXPECT_EQ(memory_instants, 2);
  std::vector<double> allocated;
  for (uint32_t row = 0; row < model_->counters.size(); ++row) {
    if (model_->Str(model_->counter_series.name[model_->counters.series[row]]) ==
        "Total Allocated (CPU)") {
      allocated.push_back(model_->counters.value[row]);
    }
  }
  EXPECT_EQ(allocated, (std::vector<double>{4096, 0}));
}

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST_F(TorchImporterTest, FrameworkSummaries) {
  const std::string out = *dir_ + "/summaries";
  std::filesystem::create_directories(out);
  std::vector<std::string> written, errors;
  exporter::WriteFrameworkSummaries(
      *model_, {out, "20260101000000", exporter::SummaryFormat::kCsv, &written, &errors});
  EXPECT_TRUE(errors.empty());
  ASSERT_EQ(written.size(), 3u);

  const auto details = Lines(out + "/operator_details_20260101000000.csv");
  ASSERT_EQ(details.size(), 3u);  // header, aten::addmm, the backward op
  EXPECT_EQ(details[0].substr(0, 40), "Name,Input Shapes,Call Stack,Host Self D");
  EXPECT_EQ(details[1], "aten::addmm,\"64;16,32;32,64\",train.py(10): step,0.200,0.200,0,0,0,0");

  const auto memory = Lines(out + "/operator_memory_20260101000000.csv");
  ASSERT_EQ(memory.size(), 2u);  // one block: allocated in aten::addmm, freed in backward
  EXPECT_EQ(memory[1],
            "aten::addmm,4.000,1700000000001000.250,1700000000001000.800,"
            "1700000000001000.800,0.550,0.550,0.003906,0.007812,0.003906,0.000000,0.007812,"
            "0.000000,,CPU");
  const auto records = Lines(out + "/memory_record_20260101000000.csv");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1], "PTA,1700000000001000.250,0.003906,0.007812,0.003906,,CPU");
}

// --summary-format=json reaches the framework tables too (they bypassed the SummaryWriter
// and were always CSV), and torch_npu's fixed names apply in a *_pt result folder.
TEST_F(TorchImporterTest, FrameworkSummariesAsJsonWithFixedNames) {
  const std::string out = *dir_ + "/summaries_json";
  std::filesystem::create_directories(out);
  std::vector<std::string> written, errors;
  exporter::SummaryTarget target{out, "20260101000000", exporter::SummaryFormat::kJson, &written,
                                 &errors};
  target.naming = exporter::FileNaming::kFixed;
  exporter::WriteFrameworkSummaries(*model_, target);
  EXPECT_TRUE(errors.empty());
  ASSERT_EQ(written.size(), 3u);
  std::ifstream in(out + "/operator_memory.json");
  const auto rows = nlohmann::json::parse(in);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["Name"], "aten::addmm");
  EXPECT_EQ(rows[0]["Device Type"], "CPU");
  EXPECT_TRUE(std::filesystem::exists(out + "/operator_details.json"));
  EXPECT_TRUE(std::filesystem::exists(out + "/memory_record.json"));
}

// kOp records as the plugin writes them: at the operator's end, so the inner operator
// comes before the outer one.
TEST(TorchImporterCompleteOps, NestInEndOrderLinkTheOutermostAndCountFlops) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) /
                       ("torch_complete_" + std::to_string(getpid())) /
                       "PROF_000001_20260101000000000_TORCHCOMPLETE0001";
  fs::create_directories(dir / "host" / "data");
  const std::string metadata = testing::MetadataJson(
      kPid, "node1", false, 0, 0, kRealtimeOffset + kBase, kRealtimeOffset + kBase + 10'000);
  testing::RawProcessWriter w((dir / "host" / "data" / "aiprof.777.data").string(), kPid, metadata);
  w.ClockSync(kBase, kBase, kRealtimeOffset + kBase);
  auto& t = w.Thread(kTid);
  const uint8_t op = format::ToKind(TorchKind::kOp);
  struct {
    format::TorchOpIds ids;
    format::TorchOpEnd end;
    uint64_t inputs[8];
  } addmm{{51, 9}, {kBase + 300, 0, 1}, {}};
  // addmm(bias[16], input[8, 32], weight[32, 16]): 2 * 8 * 32 * 16 FLOPs.
  const uint64_t values[] = {TorchInputDescriptor(TorchInputTag::kTensor, 6, 1),
                             16,
                             TorchInputDescriptor(TorchInputTag::kTensor, 6, 2),
                             8,
                             32,
                             TorchInputDescriptor(TorchInputTag::kTensor, 6, 2),
                             32,
                             16};
  std::memcpy(addmm.inputs, values, sizeof(values));
  const uint16_t flops_only = format::kTorchOpCountFlops | format::kTorchOpInputsForFlops;
  t.AddWith(op, kBase + 200, flops_only, w.Intern("aten::addmm"), addmm);
  struct {
    format::TorchOpIds ids;
    format::TorchOpEnd end;
  } linear{{50, 9}, {kBase + 400, 0, 1}}, backward{{52, 9}, {kBase + 600, 1, 1}};
  t.AddWith(op, kBase + 100, 0, w.Intern("aten::linear"), linear);
  t.AddWith(op, kBase + 500, 1, w.Intern("autograd::engine::evaluate_function: AddmmBackward0"),
            backward);
  w.ClockSync(kBase + 10'000, kBase + 10'000, kRealtimeOffset + kBase + 10'000);
  w.Close();

  const model::Model m = model::ParseProfDir(dir.string());
  auto slice = [&](std::string_view name) {
    for (uint32_t row = 0; row < m.slices.size(); ++row) {
      if (m.Str(m.slices.name[row]) == name) return row;
    }
    ADD_FAILURE() << "no slice " << name;
    return 0u;
  };
  auto has_arg = [&](uint32_t row, std::string_view key, uint64_t* value) {
    const uint32_t set = m.slices.args[row];
    for (uint32_t i = m.args.set_begin[set]; i < m.args.set_begin[set + 1]; ++i) {
      if (m.Str(m.args.key[i]) == key) {
        *value = m.args.value[i];
        return true;
      }
    }
    return false;
  };
  const uint32_t outer = slice("aten::linear"), inner = slice("aten::addmm");
  EXPECT_EQ(m.slices.ts[inner], kRealtimeOffset + kBase + 200);
  EXPECT_EQ(m.slices.dur(inner), 100);
  EXPECT_EQ(m.slices.dur(outer), 300);
  EXPECT_EQ(m.slices.parent[inner], outer);
  uint64_t flops = 0;
  ASSERT_TRUE(has_arg(inner, "flops", &flops));
  EXPECT_EQ(flops, 2u * 8 * 32 * 16);
  EXPECT_FALSE(has_arg(inner, "Input Dims", &flops));  // captured only to count
  EXPECT_FALSE(has_arg(outer, "flops", &flops));
  ASSERT_EQ(m.flows.size(), 1u);
  EXPECT_EQ(m.flows.from_slice[0], outer);
  EXPECT_EQ(m.flows.to_slice[0], slice("autograd::engine::evaluate_function: AddmmBackward0"));
  fs::remove_all(dir.parent_path());
}

// The same operators written all as kOp records, and as the plugin writes them (kOpCompact
// where they fit, kOp where not): the two models are identical, field for field.
struct OperatorSpec {
  const char* name;
  uint64_t start, end;  // ticks
  uint64_t record_id;
  int64_t sequence_nr;
  uint32_t forward_thread_id, thread_id;
  uint16_t aux;
};

std::string WriteOperators(const std::string& parent, bool compact_where_it_fits,
                           uint32_t* compact_records) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::path(parent) / (compact_where_it_fits ? "PROF_000001_20260101000000000_TORCHCOMPACT0001"
                                                : "PROF_000002_20260101000000000_TORCHFULLOPS0001");
  fs::create_directories(dir / "host" / "data");
  constexpr double kTscHz = 2.5e9;  // ticks are not ns, so the conversion is exercised
  constexpr uint64_t kTicks = 1'000'000, kSpan = 25'000'000'000;  // 10 s of ticks
  const std::string metadata = testing::MetadataJson(
      kPid, "node1", true, kTscHz, 0, kRealtimeOffset, kRealtimeOffset + 20'000'000'000);
  testing::RawProcessWriter w((dir / "host" / "data" / "aiprof.777.data").string(), kPid, metadata);
  w.ClockSync(kTicks, 0, kRealtimeOffset);
  const uint64_t long_end = kTicks + 3 + (uint64_t{1} << 32);  // a duration beyond 32 bits
  const OperatorSpec ops[] = {
      {"aten::empty", kTicks + 10, kTicks + 17, 1, -1, 0, 1, 0},
      {"aten::add_", kTicks + 5, kTicks + 40, 2, 12, 0, 1, 0},
      {"aten::mm", kTicks + 50, kTicks + 90, (uint64_t{1} << 48) - 1, 0xfffffffe, 0, 0xffff, 0},
      {"aten::huge_seq", kTicks + 100, kTicks + 120, 4, int64_t{1} << 40, 0, 1, 0},
      {"aten::huge_id", kTicks + 130, kTicks + 140, uint64_t{1} << 48, 3, 0, 1, 0},
      {"aten::many_threads", kTicks + 150, kTicks + 160, 6, 3, 0, 0x10000, 0},
      {"autograd::engine::evaluate_function: AddBackward0", kTicks + 200, kTicks + 260, 7, 12, 1, 2,
       1},
      {"aten::long", kTicks + 2, long_end, 8, 13, 0, 1, 0},
  };
  auto& t = w.Thread(kTid);
  for (const OperatorSpec& op : ops) {
    const uint32_t name = w.Intern(op.name);
    const uint64_t duration = op.end - op.start;
    if (compact_where_it_fits &&
        format::TorchOpIdsFitCompact(op.record_id, op.sequence_nr, op.forward_thread_id,
                                     op.thread_id) &&
        format::TorchDurationFitsCompact(duration)) {
      format::TorchOpCompact word =
          format::PackTorchOpCompact(op.record_id, op.sequence_nr, op.thread_id);
      word.timing = format::TorchOpCompactTiming(word, duration);
      t.AddWith(format::ToKind(TorchKind::kOpCompact), op.start, op.aux, name, word);
      ++*compact_records;
      continue;
    }
    struct {
      format::TorchOpIds ids;
      format::TorchOpEnd end;
    } full{{op.record_id, op.sequence_nr}, {op.end, op.forward_thread_id, op.thread_id}};
    t.AddWith(format::ToKind(TorchKind::kOp), op.start, op.aux, name, full);
  }
  w.ClockSync(kTicks + kSpan, 10'000'000'000, kRealtimeOffset + 10'000'000'000);
  w.Close();
  return dir.string();
}

// Every slice as text: times, nesting, name, category and every argument.
std::vector<std::string> SliceTexts(const model::Model& m) {
  std::vector<std::string> texts;
  for (uint32_t row = 0; row < m.slices.size(); ++row) {
    std::ostringstream text;
    text << m.slices.ts[row] << ' ' << m.slices.end[row] << ' ' << m.slices.depth[row] << ' '
         << m.slices.parent[row] << ' ' << m.Str(m.slices.name[row]) << ' '
         << m.Str(m.slices.category[row]);
    const uint32_t set = m.slices.args[row];
    for (uint32_t i = m.args.set_begin[set]; i < m.args.set_begin[set + 1]; ++i) {
      text << " | " << m.Str(m.args.key[i]) << '=';
      const bool string =
          m.args.type[i] == model::ArgType::kString || m.args.type[i] == model::ArgType::kJson;
      if (string) {
        text << m.Str(static_cast<model::StringId>(m.args.value[i]));
      } else {
        text << m.args.value[i];
      }
    }
    texts.push_back(text.str());
  }
  return texts;
}

TEST(TorchImporterCompactOps, ReadExactlyAsTheKOpTheyStandFor) {
  namespace fs = std::filesystem;
  const fs::path parent =
      fs::path(::testing::TempDir()) / ("torch_compact_" + std::to_string(getpid()));
  uint32_t compact = 0, compact_in_full = 0;
  const model::Model full =
      model::ParseProfDir(WriteOperators(parent.string(), false, &compact_in_full));
  const model::Model mixed = model::ParseProfDir(WriteOperators(parent.string(), true, &compact));
  EXPECT_EQ(compact_in_full, 0u);
  // aten::empty, aten::add_ and aten::mm (every field at its largest) fit; huge sequence
  // number, huge record id, thread id beyond 16 bits, forward thread and long duration do not.
  EXPECT_EQ(compact, 3u);
  const auto full_texts = SliceTexts(full);
  ASSERT_EQ(full_texts.size(), 8u);
  EXPECT_EQ(SliceTexts(mixed), full_texts);
  ASSERT_EQ(mixed.flows.size(), full.flows.size());
  ASSERT_EQ(mixed.flows.size(), 1u);  // aten::add_ (seq 12, thread 1) -> its backward
  EXPECT_EQ(mixed.flows.from_slice[0], full.flows.from_slice[0]);
  EXPECT_EQ(mixed.flows.to_slice[0], full.flows.to_slice[0]);
  // The long operator keeps its duration to the tick: 2^32 + 1 ticks at 2.5 GHz.
  for (uint32_t row = 0; row < mixed.slices.size(); ++row) {
    if (mixed.Str(mixed.slices.name[row]) == "aten::long") {
      EXPECT_EQ(mixed.slices.dur(row), full.slices.dur(row));
      EXPECT_GT(mixed.slices.dur(row), 1'700'000'000);
    }
  }
  fs::remove_all(parent);
}

}  // namespace
}  // namespace aiprof
