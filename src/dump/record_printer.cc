#include "dump/record_printer.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <unordered_map>
#include <vector>

#include "format/reader.h"
#include "format/record_kind_names.h"

namespace aiprof::dump {

namespace {

using format::ChunkType;
using format::RecordKind;

std::string KindName(uint8_t kind) {
  if (const char* name = format::RecordKindName(kind)) return name;
  char text[32];
  std::snprintf(text, sizeof text, "kind_%u", kind);
  return text;
}

std::string Quote(const std::unordered_map<uint32_t, std::string>& strings, uint32_t id) {
  auto found = strings.find(id);
  if (found == strings.end()) return "#" + std::to_string(id) + "(unknown)";
  return "\"" + found->second + "\"";
}

std::string Attributes(const format::MarkerAttributes& attributes) {
  std::string text;
  char part[64];
  if (attributes.fields & format::kMarkerHasColor) {
    std::snprintf(part, sizeof part, " color=0x%08x", attributes.color_argb);
    text += part;
  }
  if (attributes.fields & format::kMarkerHasCategory) {
    text += " category=" + std::to_string(attributes.category);
  }
  if (attributes.fields & format::kMarkerHasPayload) {
    double as_double;
    std::memcpy(&as_double, &attributes.payload, sizeof as_double);
    switch (attributes.payload_type) {
      case format::kPayloadDouble:
        std::snprintf(part, sizeof part, " payload=%g", as_double);
        break;
      case format::kPayloadInt64:
        std::snprintf(part, sizeof part, " payload=%" PRId64,
                      static_cast<int64_t>(attributes.payload));
        break;
      default:
        std::snprintf(part, sizeof part, " payload=%" PRIu64, attributes.payload);
    }
    text += part;
  }
  return text;
}

// A whole PyTorch operator, kOp or kOpCompact alike: the compact one decoded to the same
// fields, so the two read the same here.
std::string DescribeTorchOp(const format::RecordView& record,
                            const std::unordered_map<uint32_t, std::string>& strings) {
  const format::RecordHeader& header = *record.header;
  format::TorchOpIds ids;
  format::TorchOpEnd end;
  if (header.kind == format::ToKind(format::TorchKind::kOpCompact)) {
    const auto* compact = record.ExtAs<format::TorchOpCompact>(0);
    if (compact == nullptr) return " malformed";
    ids = format::UnpackTorchOpIds(*compact);
    end = {format::UnpackTorchOpEnd(*compact, header.ts), 0, format::UnpackTorchOpThread(*compact)};
  } else {
    const auto* full_ids = record.ExtAs<format::TorchOpIds>(0);
    const auto* full_end = record.ExtAs<format::TorchOpEnd>(1);
    if (full_ids == nullptr || full_end == nullptr) return " malformed";
    ids = *full_ids;
    end = *full_end;
  }
  std::string text = " name=" + Quote(strings, header.arg) + " aux=" + std::to_string(header.aux) +
                     " record_id=" + std::to_string(ids.record_id) +
                     " sequence_nr=" + std::to_string(ids.sequence_nr) +
                     " thread_id=" + std::to_string(end.thread_id) +
                     " forward_thread_id=" + std::to_string(end.forward_thread_id) +
                     " end_ts=" + std::to_string(end.end_ts);
  if (header.ext_words > 2) text += " input_words=" + std::to_string(header.ext_words - 2);
  return text;
}

std::string Describe(const format::RecordView& record,
                     const std::unordered_map<uint32_t, std::string>& strings) {
  const format::RecordHeader& header = *record.header;
  std::string text;
  auto marker_attributes = [&](uint32_t word) {
    if (const auto* attributes = record.ExtAs<format::MarkerAttributes>(word)) {
      text += Attributes(*attributes);
    }
  };
  if (header.kind == format::ToKind(format::TorchKind::kOp) ||
      header.kind == format::ToKind(format::TorchKind::kOpCompact)) {
    return DescribeTorchOp(record, strings);
  }
  switch (static_cast<RecordKind>(header.kind)) {
    case RecordKind::kThreadName:
    case RecordKind::kMark:
    case RecordKind::kRangePush:
      text = " domain=" + std::to_string(header.aux) + " name=" + Quote(strings, header.arg);
      marker_attributes(0);
      break;
    case RecordKind::kRangePop:
      text = " domain=" + std::to_string(header.aux);
      break;
    case RecordKind::kRangeStart:
      text = " domain=" + std::to_string(header.aux) + " name=" + Quote(strings, header.arg);
      if (const auto* id = record.ExtAs<format::RangeId>(0))
        text += " id=" + std::to_string(id->id);
      marker_attributes(1);
      break;
    case RecordKind::kRangeEnd:
      if (const auto* id = record.ExtAs<format::RangeId>(0))
        text += " id=" + std::to_string(id->id);
      break;
    case RecordKind::kStepBegin:
    case RecordKind::kStepEnd:
      text = " step=" + std::to_string(header.arg);
      break;
    case RecordKind::kCounter:
      text = " name=" + Quote(strings, header.arg) + " scope=" + std::to_string(header.aux);
      if (const auto* value = record.ExtAs<format::CounterValue>(0)) {
        text += " value=" + std::to_string(value->value) +
                " instance=" + std::to_string(value->instance);
      }
      break;
    case RecordKind::kClockSync:
      if (const auto* sample = record.ExtAs<format::ClockSample>(0)) {
        text = " monotonic_raw_ns=" + std::to_string(sample->monotonic_raw_ns) +
               " realtime_ns=" + std::to_string(sample->realtime_ns);
      }
      break;
    case RecordKind::kDrops:
      text = " of_kind=" + KindName(static_cast<uint8_t>(header.arg));
      if (const auto* drop = record.ExtAs<format::DropCount>(0)) {
        text += " tid=" + std::to_string(drop->tid) + " count=" + std::to_string(drop->count);
      }
      break;
    case RecordKind::kDomainName:
      text = " domain=" + std::to_string(header.aux) + " name=" + Quote(strings, header.arg);
      break;
    case RecordKind::kCollection:
      text = std::string(" ") + (header.aux ? "started" : "stopped") +
             " window=" + std::to_string(header.arg);
      break;
    case RecordKind::kForeignThread:
      text = " next_record_tid=" + std::to_string(header.arg);
      break;
    default:
      text = " aux=" + std::to_string(header.aux) + " arg=" + std::to_string(header.arg) +
             " ext_words=" + std::to_string(header.ext_words);
  }
  return text;
}

}  // namespace

bool DumpFile(const std::string& path, const DumpOptions& options, std::ostream& out,
              DumpTotals* totals) {
  format::RawFileReader reader;
  std::string error;
  if (!reader.Open(path, &error)) {
    out << "error: " << error << "\n";
    totals->clean = false;
    return false;
  }
  const format::FileHeader& header = reader.header();
  out << "file " << path << " version " << header.version_major << "." << header.version_minor
      << " pid " << header.pid << " created_realtime_ns " << header.created_realtime_ns << " size "
      << reader.file_size() << "\n";
  std::unordered_map<uint32_t, std::string> strings;
  std::map<std::pair<uint32_t, std::string>, uint64_t> counts;  // (tid, kind) -> records
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> drops;      // (tid, kind) -> last count
  uint64_t printed = 0;
  format::ReadReport report = reader.ForEachChunk([&](const format::ChunkView& chunk) {
    switch (chunk.type) {
      case ChunkType::kStrings:
        format::ForEachString(chunk.payload, [&](uint32_t id, std::string_view text) {
          strings[id] = std::string(text);
          if (!options.summary_only) out << "  string " << id << " \"" << text << "\"\n";
        });
        break;
      case ChunkType::kMetadata:
        out << "  metadata "
            << std::string_view(reinterpret_cast<const char*>(chunk.payload.data()),
                                chunk.payload.size())
            << "\n";
        break;
      case ChunkType::kEvents: {
        format::RecordCursor cursor(chunk.payload);
        format::RecordView record;
        uint32_t foreign_tid = 0;
        while (cursor.Next(&record)) {
          uint8_t kind = record.kind();
          if (kind == static_cast<uint8_t>(RecordKind::kForeignThread)) {
            foreign_tid = record.header->arg;
            continue;
          }
          uint32_t tid = foreign_tid != 0 ? foreign_tid : chunk.tid;
          foreign_tid = 0;
          ++totals->records;
          ++counts[{tid, KindName(kind)}];
          if (kind == static_cast<uint8_t>(RecordKind::kDrops)) {
            if (const auto* drop = record.ExtAs<format::DropCount>(0)) {
              drops[{drop->tid, record.header->arg}] = drop->count;
            }
          }
          if (options.summary_only || printed >= options.max_records) continue;
          ++printed;
          out << "  tid " << tid << " ts " << record.ts() << " " << KindName(kind)
              << Describe(record, strings) << "\n";
        }
        if (cursor.malformed()) out << "  malformed events chunk seq " << chunk.seq << "\n";
        break;
      }
      default:
        out << "  chunk of unknown type " << static_cast<int>(chunk.type) << "\n";
    }
    return true;
  });
  out << "records by thread and kind:\n";
  for (const auto& [key, count] : counts) {
    out << "  tid " << key.first << " " << key.second << " " << count << "\n";
  }
  uint64_t dropped = 0;
  for (const auto& [key, count] : drops) dropped += count;
  totals->drops += dropped;
  out << "drops: " << dropped << "\n";
  for (const auto& [key, count] : drops) {
    out << "  tid " << key.first << " " << KindName(static_cast<uint8_t>(key.second)) << " "
        << count << "\n";
  }
  out << "read report: " << report.Summary() << "\n";
  if (!report.clean()) totals->clean = false;
  return true;
}

}  // namespace aiprof::dump
