// Hostile raw files (valid checksums, hostile payloads) that once crashed or exhausted every
// reader: string ids near 2^32 (resize(id + 1) wrapped to 0, then wrote out of bounds; an id
// of 0x80000000 in a 768-byte file took 38.8 s and 8.4 GB), and other sizes and indexes a
// payload can claim. hostile_files_test replays them in every build; hostile_corpus_main
// writes them as the seed corpus of raw_parser_fuzzer.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "format/fuzz_framing.h"
#include "format/records_torch.h"

namespace aiprof::testing {

struct HostileInput {
  std::string name;
  std::vector<uint8_t> bytes;  // fuzz_framing.h input
};

inline std::vector<uint8_t> Join(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> joined;
  for (const auto& part : parts) joined.insert(joined.end(), part.begin(), part.end());
  return joined;
}

// A file whose one string has id `id`, used by a mark: the mark must come out named.
inline std::vector<uint8_t> StringIdFile(uint32_t id) {
  using format::ChunkType;
  using format::RecordKind;
  FuzzInput input;
  input.Chunk(ChunkType::kStrings, FuzzInput::StringEntry(id, "hostile id"));
  input.Chunk(ChunkType::kEvents,
              Join({FuzzInput::Record(static_cast<uint8_t>(RecordKind::kMark), 1000, 0, id),
                    FuzzInput::Record(static_cast<uint8_t>(RecordKind::kMark), 2000, 0, 1)}));
  return input.bytes();
}

inline std::vector<HostileInput> HostileInputs() {
  using format::ChunkType;
  using format::RecordKind;
  std::vector<HostileInput> inputs;
  for (uint32_t id : {0xFFFFFFFFu, 0xFFFFFFFEu, 0x80000000u, 0x7FFFFFFFu, 0x10000000u}) {
    char name[32];
    std::snprintf(name, sizeof name, "string_id_%08x", id);
    inputs.push_back({name, StringIdFile(id)});
  }
  // Every record kind with the largest fields and full extension words of 0xFF.
  {
    FuzzInput input;
    std::vector<uint8_t> events;
    for (int kind = 1; kind < 256; ++kind) {
      auto record = FuzzInput::Record(static_cast<uint8_t>(kind), ~0ull, 0xFFFF, 0xFFFFFFFF,
                                      std::vector<uint8_t>(64, 0xFF));
      if (events.size() + record.size() > 60000) {
        input.Chunk(ChunkType::kEvents, events, 31);
        events.clear();
      }
      events.insert(events.end(), record.begin(), record.end());
    }
    input.Chunk(ChunkType::kEvents, events, 31);
    inputs.push_back({"every_kind_all_ones", input.bytes()});
  }
  // Every record kind with zero fields and no extension words (reads past a record's end).
  {
    std::vector<uint8_t> events;
    for (int kind = 1; kind < 256; ++kind) {
      auto record = FuzzInput::Record(static_cast<uint8_t>(kind), 0, 0, 0);
      events.insert(events.end(), record.begin(), record.end());
    }
    inputs.push_back({"every_kind_bare", FuzzInput().Chunk(ChunkType::kEvents, events).bytes()});
  }
  // A record claiming more extension words than its chunk holds.
  inputs.push_back(
      {"ext_words_past_chunk",
       FuzzInput()
           .Chunk(ChunkType::kEvents,
                  Join({FuzzInput::Record(static_cast<uint8_t>(RecordKind::kMark), 5, 0, 0),
                        {0, 0, 0, 0, 0, 0, 0, 0, 2, 255, 0, 0, 0, 0, 0, 0}}))
           .bytes()});
  // Ranges that end before they start, step numbers at the top of the range, one thread that
  // claims to be every other (foreign-thread prefixes with extreme tids).
  {
    std::vector<uint8_t> events;
    auto add = [&](std::vector<uint8_t> record) {
      events.insert(events.end(), record.begin(), record.end());
    };
    for (uint32_t tid : {0u, 1u, 0xFFFFFFFFu, 0x7FFFFFFFu}) {
      add(FuzzInput::Record(static_cast<uint8_t>(RecordKind::kForeignThread), 10, 0, tid));
      add(FuzzInput::Record(static_cast<uint8_t>(RecordKind::kRangePush), 10, 0, 1));
    }
    add(FuzzInput::Record(static_cast<uint8_t>(RecordKind::kStepBegin), 50, 0, 0xFFFFFFFF));
    add(FuzzInput::Record(static_cast<uint8_t>(RecordKind::kStepEnd), 40, 0, 0xFFFFFFFF));
    add(FuzzInput::Record(static_cast<uint8_t>(RecordKind::kRangePop), 5, 0, 0));
    inputs.push_back({"inverted_ranges_and_steps",
                      FuzzInput()
                          .Chunk(ChunkType::kStrings, FuzzInput::StringEntry(1, "r"))
                          .Chunk(ChunkType::kEvents, events)
                          .bytes()});
  }
  // Metadata: deeply nested JSON, and values of every wrong type.
  {
    std::string nested(20000, '[');
    nested += std::string(20000, ']');
    std::string wrong =
        R"({"clock":{"source":"tsc","tsc_hz_estimate":-1e308},"start_realtime_ns":1e300,)"
        R"("end_realtime_ns":"x","cmdline":[1,null,{}],"hostname":7,"mem_total_bytes":-5,)"
        R"("metadata":{"rank":"-99999999999","world_size":1e99}})";
    inputs.push_back(
        {"metadata_nested_and_wrong_types",
         FuzzInput()
             .Chunk(ChunkType::kMetadata, std::vector<uint8_t>(nested.begin(), nested.end()))
             .Chunk(ChunkType::kMetadata, std::vector<uint8_t>(wrong.begin(), wrong.end()))
             .bytes()});
  }
  // A compressed chunk whose payload is not zstd, and one that is empty.
  {
    std::vector<uint8_t> bytes = {0x80 | 0, 0, 32};
    bytes.insert(bytes.end(), 32, 0xAB);
    bytes.insert(bytes.end(), {0x80 | 1, 0, 0});
    inputs.push_back({"bad_zstd", bytes});
  }
  return inputs;
}

}  // namespace aiprof::testing
