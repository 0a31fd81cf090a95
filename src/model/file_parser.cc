#include "model/file_parser.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "model/huge_pages.h"
#include "model/nesting.h"
#include "model/prefault.h"
#include "model/process_rows.h"
#include "model/rank_identity.h"
#include "model/table_reserve.h"
#include "model/zero_pages.h"

namespace aiprof::model {
namespace {

struct FileState {
  // The file's string ids: dense ones (the runtime numbers from 1) index `strings`, up to as
  // many as the file has room for; any other id (only a corrupt or hostile file has them)
  // goes to `sparse_strings`, so an id of 0x80000000 costs one map entry, not 8 GB.
  std::vector<StringId> strings;
  std::unordered_map<uint32_t, StringId> sparse_strings;
  uint64_t dense_limit = 0;
  std::vector<ClockPoint> clock_points;
  nlohmann::json metadata = nlohmann::json::object();
  uint64_t first_ticks = UINT64_MAX;
  uint64_t last_ticks = 0;
};

void ApplyMetadata(const nlohmann::json& metadata, uint32_t process, Model& model) {
  ProcessTable& p = model.processes;
  p.metadata[process] = metadata.dump();
  if (metadata.contains("hostname") && metadata["hostname"].is_string()) {
    p.host[process] = model.strings.Intern(metadata["hostname"].get<std::string>());
  }
  p.rank[process] = ReadRankIdentity(p.metadata[process]).rank;
  const auto memory = metadata.find("mem_total_bytes");
  if (memory != metadata.end() && memory->is_number_integer() && memory->get<int64_t>() > 0) {
    const StringId host = p.host[process];
    auto known = std::find_if(model.hosts.begin(), model.hosts.end(),
                              [&](const HostProperties& h) { return h.host == host; });
    if (known == model.hosts.end()) known = model.hosts.insert(model.hosts.end(), {host, 0});
    known->total_memory = memory->get<uint64_t>();
  }
  std::string name;
  if (metadata.contains("cmdline")) {
    const nlohmann::json& cmdline = metadata["cmdline"];
    if (cmdline.is_string()) name = cmdline.get<std::string>();
    if (cmdline.is_array()) {
      for (const auto& part : cmdline) {
        if (!part.is_string()) continue;
        if (!name.empty()) name += ' ';
        name += part.get<std::string>();
      }
    }
  }
  if (!name.empty()) p.name[process] = model.strings.Intern(name);
  // A time in ns; 0 for anything else (a corrupt value out of int64's range included).
  auto json_ns = [&](const char* key) -> int64_t {
    const auto found = metadata.find(key);
    if (found == metadata.end() || !found->is_number()) return 0;
    if (found->is_number_integer()) return found->get<int64_t>();
    const double value = found->get<double>();
    return std::isfinite(value) && std::fabs(value) < 9e18 ? static_cast<int64_t>(value) : 0;
  };
  model.start_ns = json_ns("start_realtime_ns");
  model.end_ns = json_ns("end_realtime_ns");
}

// Upper bound of the records in a file from its chunk headers alone (raw payload bytes / 16),
// so the tables can reserve once instead of growing by doubling: growth costs copies, page
// faults and up to twice the memory at its peak. Reserving only claims address space; pages
// are touched as rows arrive.
uint64_t EstimateRecords(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  uint64_t records = 0;
  uint64_t offset = sizeof(format::FileHeader);
  format::ChunkHeader header{};
  while (pread(fd, &header, sizeof(header), static_cast<off_t>(offset)) ==
             static_cast<ssize_t>(sizeof(header)) &&
         header.magic == format::kChunkMagic && header.stored_size <= format::kMaxChunkPayload &&
         header.raw_size <= format::kMaxChunkPayload) {
    if (header.type == static_cast<uint16_t>(format::ChunkType::kEvents)) {
      records += header.raw_size / format::kRecordWordBytes;
    }
    uint64_t padded = (uint64_t{header.stored_size} + format::kChunkAlignment - 1) /
                      format::kChunkAlignment * format::kChunkAlignment;
    offset += sizeof(header) + padded;
  }
  close(fd);
  return records;
}

void ReserveTables(Model& model, uint64_t records) {
  // Ranges take two records per slice; markers at most one per slice.
  size_t slices = records / 2 + 16, rare = records / 16 + 16;
  ReserveSliceRows(model.slices, slices);
  MarkerTable& m = model.markers;
  ReserveOnHugePages(m.is_instant, slices);
  ReserveOnHugePages(m.row, slices);
  ReserveOnHugePages(m.event_type, slices);
  ReserveOnHugePages(m.domain, slices);
  ReserveOnHugePages(m.detail, slices);
  ReserveOnHugePages(model.counters.series, rare);
  ReserveOnHugePages(model.counters.ts, rare);
  ReserveOnHugePages(model.counters.value, rare);
}

// The columns ReserveTables reserved for the slices and the markers, by their rows.
enum PrefaultGroup : size_t { kSliceRows, kMarkerRows };
void AddReservedColumns(Prefaulter& prefault, Model& model) {
  SliceTable& s = model.slices;
  prefault.Add(s.ts, kSliceRows);
  prefault.Add(s.end, kSliceRows);
  prefault.Add(s.track, kSliceRows);
  prefault.Add(s.name, kSliceRows);
  prefault.Add(s.category, kSliceRows);
  prefault.Add(s.args, kSliceRows);
  prefault.Add(s.depth, kSliceRows);
  prefault.Add(s.parent, kSliceRows);
  prefault.Add(s.flags, kSliceRows);
  MarkerTable& m = model.markers;
  prefault.Add(m.is_instant, kMarkerRows);
  prefault.Add(m.row, kMarkerRows);
  prefault.Add(m.event_type, kMarkerRows);
  prefault.Add(m.domain, kMarkerRows);
  prefault.Add(m.detail, kMarkerRows);
}

// Ticks → CLOCK_MONOTONIC_RAW ns in every table importers filled.
void ConvertTimes(Model& model, const ClockFit& clock) {
  for (int64_t& ts : model.slices.ts) ts = clock.ToMonotonicNs(ts);
  for (int64_t& end : model.slices.end) end = clock.ToMonotonicNs(end);
  for (int64_t& ts : model.instants.ts) ts = clock.ToMonotonicNs(ts);
  for (int64_t& ts : model.counters.ts) ts = clock.ToMonotonicNs(ts);
  for (int64_t& ts : model.drops.last_ts) ts = clock.ToMonotonicNs(ts);
}

// The file's process row: named by its pid until the metadata names it.
void AddFileProcess(Model& model, uint32_t pid) {
  AppendHostProcess(model, pid, kNoString);
}

// One instance of every registered importer, and which one handles each record kind.
struct Importers {
  std::vector<std::unique_ptr<RecordImporter>> all;
  RecordImporter* by_kind[256] = {};

  Importers() {
    for (ImporterFactory factory : RegisteredImporters()) {
      all.push_back(factory());
      for (int kind = 1; kind < 256; ++kind) {
        if (by_kind[kind] == nullptr && all.back()->Handles(static_cast<uint8_t>(kind))) {
          by_kind[kind] = all.back().get();
        }
      }
    }
  }
};

void ReadStringsChunk(const format::ChunkView& chunk, FileState& state, Model& model,
                      format::ReadReport& problems) {
  bool ok = format::ForEachString(chunk.payload, [&](uint32_t id, std::string_view text) {
    if (id >= state.dense_limit) {
      state.sparse_strings[id] = model.strings.Intern(text);
      return;
    }
    if (id >= state.strings.size()) state.strings.resize(size_t{id} + 1, kNoString);
    state.strings[id] = model.strings.Intern(text);
  });
  if (!ok) {
    problems.AddProblem("malformed strings chunk at offset " + std::to_string(chunk.file_offset));
  }
}

void ReadMetadataChunk(const format::ChunkView& chunk, FileState& state, Model& model,
                       format::ReadReport& problems) {
  auto json = nlohmann::json::parse(chunk.payload.begin(), chunk.payload.end(), nullptr, false);
  if (!json.is_object()) {
    problems.AddProblem("metadata chunk at offset " + std::to_string(chunk.file_offset) +
                        " is not a JSON object");
    return;
  }
  for (auto& [key, value] : json.items()) state.metadata[key] = value;
  ApplyMetadata(state.metadata, 0, model);
  // The runtime could not write everything (a full disk): say so beside the drop counts.
  if (const auto failure = json.find("write_failure");
      failure != json.end() && failure->is_object()) {
    problems.AddProblem("collection stopped early: writing the raw data failed (" +
                        failure->value("error", std::string("unknown error")) + "); " +
                        std::to_string(failure->value("events_lost", uint64_t{0})) +
                        " events could not be written and are counted as dropped");
  }
}

// Hands each record of an events chunk to its importer; clock samples go to the file's
// clock points.
void ReadEventsChunk(const format::ChunkView& chunk, uint32_t file_pid, const Importers& importers,
                     ImportContext& context, FileState& state, Model& model,
                     format::ReadReport& problems) {
  const uint8_t clock_sync = static_cast<uint8_t>(format::RecordKind::kClockSync);
  const uint8_t foreign_thread = static_cast<uint8_t>(format::RecordKind::kForeignThread);
  const uint32_t tid = chunk.tid != 0 ? chunk.tid : file_pid;
  context.BindChunk(tid);
  format::RecordCursor cursor(chunk.payload);
  format::RecordView record;
  uint32_t foreign_tid = 0;  // the next record belongs to this thread
  while (cursor.Next(&record)) {
    if (record.kind() == foreign_thread) {
      foreign_tid = record.header->arg;
      continue;
    }
    if (foreign_tid != 0) context.BindChunk(foreign_tid);
    ++model.records;
    uint64_t ts = record.ts();
    if (record.kind() == clock_sync) {
      if (const auto* sample = record.ExtAs<format::ClockSample>(0)) {
        state.clock_points.push_back({ts, sample->monotonic_raw_ns, sample->realtime_ns});
      }
      continue;
    }
    state.first_ticks = std::min(state.first_ticks, ts);
    state.last_ticks = std::max(state.last_ticks, ts);
    if (RecordImporter* importer = importers.by_kind[record.kind()]) {
      importer->Import(record, context);
    } else {
      ++model.unknown_records;
    }
    if (foreign_tid != 0) {
      foreign_tid = 0;
      context.BindChunk(tid);
    }
  }
  if (cursor.malformed()) {
    problems.AddProblem("events chunk at offset " + std::to_string(chunk.file_offset) + ": " +
                        std::to_string(cursor.bytes_left()) +
                        " bytes of malformed records skipped");
    problems.bytes_skipped += cursor.bytes_left();
  }
}

// The tick-to-ns fit of the file's clock samples, with the clock source its metadata names.
ClockFit FitFileClock(FileState& state) {
  const nlohmann::json& clock_json =
      state.metadata.contains("clock") ? state.metadata["clock"] : nlohmann::json::object();
  // Fields may be null (the runtime writes tsc_hz_estimate null when it has no estimate).
  bool ticks_are_ns = true;
  double nominal_hz = 0;
  if (clock_json.is_object()) {
    auto source = clock_json.find("source");
    ticks_are_ns = !(source != clock_json.end() && source->is_string() && *source == "tsc");
    auto hz = clock_json.find("tsc_hz_estimate");
    if (hz != clock_json.end() && hz->is_number()) nominal_hz = hz->get<double>();
  }
  std::sort(state.clock_points.begin(), state.clock_points.end(),
            [](const ClockPoint& a, const ClockPoint& b) { return a.ticks < b.ticks; });
  return ClockFit::Fit(state.clock_points, ticks_are_ns, nominal_hz);
}

// Closes ranges that never ended at the last timestamp of the file.
void CloseOpenSlices(Model& model, uint64_t last_ticks) {
  for (size_t row = 0; row < model.slices.size(); ++row) {
    if (model.slices.end[row] == kOpenEnd) {
      model.slices.end[row] = static_cast<int64_t>(last_ticks);
      model.slices.flags[row] |= kSliceUnclosed;
    }
  }
}

}  // namespace

Fragment ParseRawFile(const std::string& path) {
  Fragment fragment;
  Model& model = fragment.model;
  model.files.push_back({path, {}, {}});
  FileReport& file_report = model.files.back();

  format::RawFileReader reader;
  if (!reader.Open(path, &file_report.error)) return fragment;
  fragment.opened = true;
  model.raw_bytes = reader.file_size();
  ReserveTables(model, EstimateRecords(path));
  // The pages of the reserved columns are faulted in by a helper as the rows come.
  Prefaulter prefault;
  AddReservedColumns(prefault, model);
  prefault.Start();
  const uint32_t pid = reader.header().pid;
  AddFileProcess(model, pid);

  ImportContext context(&model);
  context.SetProcess(0);
  FileState state;
  state.strings.push_back(kNoString);
  // Each string entry takes at least 8 bytes (id and length).
  state.dense_limit = reader.file_size() / 8 + 1;
  context.SetFileStrings(&state.strings, &state.sparse_strings);
  const Importers importers;

  // The all-zero ranges of the columns go back as the rows cover them, not only at the end.
  ZeroPageReleaser zero_pages;
  // What the payloads held that could not be used; added to the framing's report after it.
  format::ReadReport payload_problems;
  file_report.report = reader.ForEachChunk([&](const format::ChunkView& chunk) {
    switch (chunk.type) {
      case format::ChunkType::kStrings:
        ReadStringsChunk(chunk, state, model, payload_problems);
        break;
      case format::ChunkType::kMetadata:
        ReadMetadataChunk(chunk, state, model, payload_problems);
        break;
      case format::ChunkType::kEvents:
        ReadEventsChunk(chunk, pid, importers, context, state, model, payload_problems);
        prefault.Advance(kSliceRows, model.slices.size());
        prefault.Advance(kMarkerRows, model.markers.size());
        zero_pages.ReleaseFilled(model);
        break;
      default:
        break;
    }
    return true;
  });
  prefault.Stop();
  for (std::string& problem : payload_problems.problems) {
    file_report.report.AddProblem(std::move(problem));
  }
  file_report.report.problems_total +=
      payload_problems.problems_total - payload_problems.problems.size();
  file_report.report.bytes_skipped += payload_problems.bytes_skipped;

  for (auto& importer : importers.all) importer->Finish(context, state.last_ticks);

  fragment.clock = FitFileClock(state);
  if (!fragment.clock.has_samples() && model.records > 0) {
    file_report.report.AddProblem("no clock samples: times are relative to the file start");
  }
  CloseOpenSlices(model, state.last_ticks);
  ConvertTimes(model, fragment.clock);
  if (!fragment.clock.has_samples()) {
    // Anchor the first event at the file's creation time so the data stays usable.
    int64_t first = state.first_ticks == UINT64_MAX
                        ? 0
                        : fragment.clock.ToMonotonicNs(static_cast<int64_t>(state.first_ticks));
    int64_t created = static_cast<int64_t>(reader.header().created_realtime_ns);
    fragment.clock =
        ClockFit::Fit({{0, static_cast<uint64_t>(first), static_cast<uint64_t>(created)}}, true, 0);
  }
  // The columns the importers filled are final: their all-zero pages (the args of a run
  // without arguments...) go back before the nesting's scratch is allocated (peak memory).
  ReleaseZeroPages(model);
  ResolveNesting(model);
  fragment.hostname = std::string(model.Str(model.processes.host[0]));
  fragment.flow_endpoints = std::move(context.flow_endpoints());
  return fragment;
}

}  // namespace aiprof::model
