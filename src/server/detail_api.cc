// The timeline's side panel: a slice's or an instant's details, the statistics of an area
// selection, and the search (sorted, paged, exact for links by name).
#include <algorithm>
#include <bit>
#include <unordered_map>

#include "model/ascii_case.h"
#include "server/json_text.h"
#include "server/ui_api.h"

namespace aiprof::server {
namespace {

constexpr size_t kRangeStatisticsRows = 500;
constexpr size_t kStreamPiece = 64 * 1024;  // bytes gathered before a piece is sent

void AppendArgs(const model::Model& m, uint32_t set, std::string& out) {
  out += '{';
  if (set != 0 && set + 1 < m.args.set_begin.size()) {
    for (uint32_t i = m.args.set_begin[set]; i < m.args.set_begin[set + 1]; ++i) {
      if (i > m.args.set_begin[set]) out += ',';
      AppendJsonString(out, m.Str(m.args.key[i]));
      out += ':';
      const uint64_t value = m.args.value[i];
      switch (m.args.type[i]) {
        case model::ArgType::kInt:
          AppendJsonNumber(out, static_cast<int64_t>(value));
          break;
        case model::ArgType::kUInt:
          AppendJsonNumber(out, value);
          break;
        case model::ArgType::kDouble:
          AppendJsonNumber(out, std::bit_cast<double>(value));
          break;
        case model::ArgType::kString:
        case model::ArgType::kJson:
          AppendJsonString(out, m.Str(static_cast<model::StringId>(value)));
          break;
      }
    }
  }
  out += '}';
}

}  // namespace

// Thread and process of a slice or instant: names, ids and the process's role.
void UiApi::AppendPlace(uint32_t thread, std::string& out) const {
  const model::Model& m = model_;
  const uint32_t process = m.ProcessOfThread(thread);
  out += ",\"tid\":" + std::to_string(m.threads.tid[thread]) + ",\"thread\":";
  AppendJsonString(out, m.Str(m.threads.name[thread]));
  out += ",\"pid\":" + std::to_string(m.processes.pid[process]) + ",\"process\":";
  AppendJsonString(out, m.Str(m.processes.name[process]));
  out += ",\"role\":";
  AppendJsonString(out, role_labels_[process]);
}

std::string UiApi::SliceDetails(uint32_t slice) const {
  const model::Model& m = model_;
  if (slice >= m.slices.size()) throw ApiError(404, "no slice " + std::to_string(slice));
  std::string out = "{\"id\":" + std::to_string(slice) + ",\"name\":";
  AppendJsonString(out, m.Str(m.slices.name[slice]));
  out += ",\"category\":";
  AppendJsonString(out, m.Str(m.slices.category[slice]));
  out += ",\"ts\":" + std::to_string(m.slices.ts[slice] - origin_ns_) +
         ",\"dur\":" + std::to_string(m.slices.dur(slice)) +
         ",\"track\":" + std::to_string(m.slices.track[slice]) +
         ",\"depth\":" + std::to_string(m.slices.depth[slice]);
  AppendPlace(m.ThreadOfSlice(slice), out);
  out += ",\"unclosed\":";
  out += (m.slices.flags[slice] & model::kSliceUnclosed) ? "true" : "false";
  const uint32_t parent = m.slices.parent[slice];
  if (parent != model::kNoRow) {
    out += ",\"parent\":{\"id\":" + std::to_string(parent) + ",\"name\":";
    AppendJsonString(out, m.Str(m.slices.name[parent]));
    out += '}';
  }
  out += ",\"args\":";
  AppendArgs(m, m.slices.args[slice], out);
  out += ",\"flows\":[";
  bool first = true;
  for (size_t f = 0; f < m.flows.size(); ++f) {
    const bool outgoing = m.flows.from_slice[f] == slice;
    if (!outgoing && m.flows.to_slice[f] != slice) continue;
    const uint32_t other = outgoing ? m.flows.to_slice[f] : m.flows.from_slice[f];
    if (!first) out += ',';
    first = false;
    out += "{\"direction\":";
    out += outgoing ? "\"out\"" : "\"in\"";
    out += ",\"category\":";
    AppendJsonString(out, m.Str(m.flows.category[f]));
    out += ",\"slice\":" + std::to_string(other) + ",\"name\":";
    AppendJsonString(out, m.Str(m.slices.name[other]));
    out += ",\"ts\":" + std::to_string(m.slices.ts[other] - origin_ns_) +
           ",\"dur\":" + std::to_string(m.slices.dur(other)) +
           ",\"track\":" + std::to_string(m.slices.track[other]) +
           ",\"depth\":" + std::to_string(m.slices.depth[other]) + "}";
  }
  out += "]}";
  return out;
}

std::string UiApi::InstantDetails(uint32_t instant) const {
  const model::Model& m = model_;
  if (instant >= m.instants.size()) throw ApiError(404, "no instant " + std::to_string(instant));
  const uint32_t track = m.instants.track[instant];
  std::string out = "{\"id\":" + std::to_string(instant) + ",\"name\":";
  AppendJsonString(out, m.Str(m.instants.name[instant]));
  out += ",\"category\":";
  AppendJsonString(out, m.Str(m.instants.category[instant]));
  out += ",\"ts\":" + std::to_string(m.instants.ts[instant] - origin_ns_) +
         ",\"track\":" + std::to_string(track);
  AppendPlace(m.tracks.thread[track], out);
  out += ",\"args\":";
  AppendArgs(m, m.instants.args[instant], out);
  out += '}';
  return out;
}

std::string UiApi::RangeStatistics(const TimeWindow& window,
                                   const std::vector<uint32_t>& tracks) const {
  CheckTracks(tracks);
  struct Sum {
    uint64_t count = 0;
    int64_t total = 0;
    int64_t max = 0;
    uint32_t longest = 0;
  };
  std::unordered_map<model::StringId, Sum> by_name;
  uint64_t slices = 0;
  auto add = [&](uint32_t slice) {
    Sum& sum = by_name[model_.slices.name[slice]];
    const int64_t dur = model_.slices.dur(slice);
    ++sum.count;
    sum.total += dur;
    if (sum.count == 1 || dur > sum.max) {
      sum.max = dur;
      sum.longest = slice;
    }
    ++slices;
  };
  const int64_t t0 = window.t0 + origin_ns_;
  const int64_t t1 = window.t1 + origin_ns_;
  if (tracks.empty()) {
    for (uint32_t track = 0; track < model_.tracks.size(); ++track) {
      index_.ForEachSliceIn(track, t0, t1, add);
    }
  } else {
    for (uint32_t track : tracks) index_.ForEachSliceIn(track, t0, t1, add);
  }
  std::vector<std::pair<model::StringId, Sum>> rows(by_name.begin(), by_name.end());
  std::sort(rows.begin(), rows.end(), [this](const auto& a, const auto& b) {
    return a.second.total != b.second.total ? a.second.total > b.second.total
                                            : model_.Str(a.first) < model_.Str(b.first);
  });
  // Rows: [name, count, total ns, max ns, mean ns, longest slice], by total time.
  std::string out =
      "{\"slices\":" + std::to_string(slices) + ",\"names\":" + std::to_string(rows.size()) +
      ",\"tracks\":" + std::to_string(tracks.empty() ? model_.tracks.size() : tracks.size()) +
      ",\"rows\":[";
  for (size_t i = 0; i < rows.size() && i < kRangeStatisticsRows; ++i) {
    const Sum& sum = rows[i].second;
    if (i > 0) out += ',';
    out += '[';
    AppendJsonString(out, model_.Str(rows[i].first));
    out += ',' + std::to_string(sum.count) + ',' + std::to_string(sum.total) + ',' +
           std::to_string(sum.max) + ',';
    AppendJsonNumber(out, static_cast<double>(sum.total) / static_cast<double>(sum.count));
    out += ',' + std::to_string(sum.longest) + ']';
  }
  out += "]}";
  return out;
}

void UiApi::Search(const SearchQuery& query, const JsonSink& out) const {
  if (query.text.empty()) throw ApiError(400, "search: the parameter q (text to find) is empty");
  const model::Model& m = model_;
  const std::string needle = model::AsciiLowered(query.text);
  std::vector<uint8_t> matches(m.strings.size(), 0);
  for (model::StringId id = 0; id < m.strings.size(); ++id) {
    const std::string_view name = m.strings.Get(id);
    matches[id] = query.exact ? name == query.text
                              : model::AsciiLowered(name).find(needle) != std::string::npos;
  }
  std::vector<uint32_t> found;
  for (uint32_t row = 0; row < m.slices.size(); ++row) {
    if (matches[m.slices.name[row]]) found.push_back(row);
  }
  // The page [offset, offset + limit) of the matches in order: only that much is sorted.
  auto before = [&](uint32_t a, uint32_t b) {
    if (query.longest_first) {
      const int64_t da = m.slices.dur(a), db = m.slices.dur(b);
      if (da != db) return da > db;
    }
    return m.slices.ts[a] != m.slices.ts[b] ? m.slices.ts[a] < m.slices.ts[b] : a < b;
  };
  const size_t begin = std::min(query.offset, found.size());
  const size_t end = std::min(query.offset + query.limit, found.size());
  std::nth_element(found.begin(), found.begin() + begin, found.end(), before);
  std::partial_sort(found.begin() + begin, found.begin() + end, found.end(), before);
  std::string piece = "{\"total\":" + std::to_string(found.size()) +
                      ",\"offset\":" + std::to_string(begin) + ",\"matches\":[";
  for (size_t i = begin; i < end; ++i) {
    const uint32_t row = found[i];
    if (i > begin) piece += ',';
    piece += '[' + std::to_string(row) + ',' + std::to_string(m.slices.ts[row] - origin_ns_) + ',' +
             std::to_string(m.slices.dur(row)) + ',' + std::to_string(m.slices.track[row]) + ',' +
             std::to_string(m.slices.depth[row]) + ',';
    AppendJsonString(piece, m.Str(m.slices.name[row]));
    piece += ']';
    if (piece.size() >= kStreamPiece) {
      if (!out(piece)) return;
      piece.clear();
    }
  }
  piece += "]}";
  out(piece);
}

}  // namespace aiprof::server
