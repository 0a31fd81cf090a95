#include "model/discovery.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "format/output_layout.h"
#include "model/file_importer.h"
#include "model/file_input.h"
#include "model/parser.h"
#include "model/rank_identity.h"

namespace aiprof::model {
namespace fs = std::filesystem;

namespace {

// JSON files aiprof and torch_npu write beside runs that are no traces.
bool IsKnownNonTrace(const std::string& name) {
  static const std::set<std::string> kNames = {"info.json", "profiler_info.json",
                                               "profiler_metadata.json", "profiler_config.json",
                                               "advice.json"};
  return kNames.count(name) > 0;
}

bool IsJsonName(const std::string& name) {
  return name.ends_with(".json") || name.ends_with(".json.gz");
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool AllDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

// "{worker}_{YYYYmmddHHMMSSfff}[_{n}]_aiprof_pt" → worker (python/aiprof/profiler/_handler.py;
// torch_npu's *_ascend_pt folders are named alike).
std::string WorkerOfResultFolder(std::string name) {
  for (std::string_view suffix : {"_aiprof_pt", "_ascend_pt"}) {
    if (!name.ends_with(suffix)) continue;
    name.resize(name.size() - suffix.size());
    for (int part = 0; part < 2; ++part) {
      const size_t underscore = name.rfind('_');
      if (underscore == std::string::npos || !AllDigits(name.substr(underscore + 1))) break;
      const bool stamp = name.size() - underscore - 1 >= 14;
      name.resize(underscore);
      if (stamp) break;
    }
    return name;
  }
  return "";
}

// "{worker}.{time_ns}.pt.trace.json[.gz]" (tensorboard_trace_handler) → worker.
std::string WorkerOfTraceFile(std::string name) {
  for (std::string_view suffix : {".pt.trace.json.gz", ".pt.trace.json"}) {
    if (!name.ends_with(suffix)) continue;
    name.resize(name.size() - suffix.size());
    const size_t dot = name.rfind('.');
    if (dot != std::string::npos && AllDigits(name.substr(dot + 1))) name.resize(dot);
    return name;
  }
  return "";
}

std::string TraceStem(const std::string& name) {
  std::string stem = name;
  for (std::string_view suffix : {".gz", ".json"}) {
    if (stem.ends_with(suffix)) stem.resize(stem.size() - suffix.size());
  }
  return stem;
}

// The rank a trace's distributedInfo names, when its first bytes hold it (HTA reads it the
// same way, with the pattern "rank":\s+(\d+)).
int32_t RankInHead(std::string_view head) {
  const size_t info = head.find("\"distributedInfo\"");
  if (info == std::string_view::npos) return -1;
  const size_t key = head.find("\"rank\"", info);
  if (key == std::string_view::npos) return -1;
  size_t at = key + 6;
  while (at < head.size() && (head[at] == ' ' || head[at] == ':' || head[at] == '"')) ++at;
  int32_t rank = 0;
  bool digits = false;
  for (; at < head.size() && std::isdigit(static_cast<unsigned char>(head[at])); ++at) {
    rank = rank * 10 + (head[at] - '0');
    digits = true;
  }
  return digits ? rank : -1;
}

// The last `bytes` bytes of a plain (not gzip) file: Kineto's on-demand traces write
// distributedInfo after the events.
std::string ReadPlainTail(const fs::path& path, size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  char magic[2] = {0, 0};
  if (!in.read(magic, 2) || (magic[0] == '\x1f' && magic[1] == '\x8b')) return "";
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff from = size > static_cast<std::streamoff>(bytes) ? size - bytes : 0;
  in.seekg(from);
  std::string tail(static_cast<size_t>(size - from), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  return tail;
}

class Walker {
 public:
  explicit Walker(InputDiscovery* out) : out_(*out) {}

  void AddRaw(const fs::path& dir) {
    if (!seen_.insert(fs::weakly_canonical(dir).string()).second) return;
    RunInput run;
    run.kind = RunKind::kRaw;
    run.path = dir.string();
    run.files = ListRawFiles(run.path);
    run.output_dir = (dir / format::kExportDir).string();
    std::error_code ec;
    const fs::path info = dir / "info.json";
    if (fs::exists(info, ec)) {
      const std::string text = ReadText(info);
      const RankIdentity identity = ReadRankIdentity(text);
      run.host = identity.host;
      run.rank = identity.rank;
      run.job = identity.job;
      const auto json = nlohmann::json::parse(text, nullptr, false);
      if (json.is_object() && json.contains("pid") && json["pid"].is_number_integer()) {
        run.pid = json["pid"].get<int64_t>();
      }
    }
    run.worker = WorkerOfResultFolder(dir.parent_path().filename().string());
    out_.runs.push_back(std::move(run));
  }

  // False when `path` is no trace this version reads.
  bool AddTrace(const fs::path& path) {
    const std::string head = ReadFileHead(path.string(), kSniffBytes);
    if (FileImporterFor(path.string(), head) == nullptr) return false;
    if (!seen_.insert(fs::weakly_canonical(path).string()).second) return true;
    RunInput run;
    run.kind = RunKind::kTrace;
    run.path = path.string();
    run.files = {run.path};
    const std::string name = path.filename().string();
    run.output_dir = (path.parent_path() / format::kExportDir / TraceStem(name)).string();
    run.rank = RankInHead(head);
    if (run.rank < 0) run.rank = RankInHead(ReadPlainTail(path, kSniffBytes));
    run.worker = WorkerOfTraceFile(name);
    if (head.find("\n\"aiprof\":{\"dropped_events\"") != std::string::npos) {
      aiprof_written_.insert(out_.runs.size());
    }
    out_.runs.push_back(std::move(run));
    return true;
  }

  void Walk(const fs::path& dir, int depth) {
    std::error_code ec;
    std::vector<fs::directory_entry> entries;
    for (const auto& entry : fs::directory_iterator(dir, ec)) entries.push_back(entry);
    std::sort(entries.begin(), entries.end());
    for (const fs::directory_entry& entry : entries) {
      const std::string name = entry.path().filename().string();
      if (entry.is_directory(ec)) {
        if (name.starts_with("PROF_")) {
          AddRaw(entry.path());
        } else if (!IsSkippedDir(name) && depth < kMaxDiscoveryDepth) {
          Walk(entry.path(), depth + 1);
        }
      } else if (entry.is_regular_file(ec) && IsJsonName(name) && !IsKnownNonTrace(name)) {
        AddTrace(entry.path());
      }
    }
  }

  // aiprof's Kineto export of raw data that was found too is the same data twice.
  void DropCopiesOfRawRuns() {
    const bool any_raw = std::any_of(out_.runs.begin(), out_.runs.end(),
                                     [](const RunInput& run) { return run.kind == RunKind::kRaw; });
    if (!any_raw || aiprof_written_.empty() || given_traces_ == out_.runs.size()) return;
    std::vector<RunInput> kept;
    size_t dropped = 0;
    for (size_t i = 0; i < out_.runs.size(); ++i) {
      if (aiprof_written_.count(i) > 0 && given_.count(i) == 0) {
        ++dropped;
        continue;
      }
      kept.push_back(std::move(out_.runs[i]));
    }
    out_.runs = std::move(kept);
    if (dropped > 0) {
      out_.notes.push_back(std::to_string(dropped) +
                           " Kineto trace(s) written by aiprof from the raw data found beside "
                           "them left out (the same data); pass a trace file itself to read it");
    }
  }

  void MarkGiven() { given_.insert(out_.runs.size() - 1); }

  size_t given_traces_ = 0;

 private:
  InputDiscovery& out_;
  std::set<std::string> seen_;
  std::set<size_t> aiprof_written_;
  std::set<size_t> given_;
};

}  // namespace

std::string RunInput::Label() const {
  return fs::path(path).filename().string();
}

InputDiscovery DiscoverRuns(const std::vector<std::string>& paths) {
  InputDiscovery out;
  Walker walker(&out);
  for (const std::string& path : paths) {
    std::error_code ec;
    const fs::path given(path);
    if (!fs::exists(given, ec)) {
      out.error = "'" + path +
                  "' does not exist; pass a PROF_* directory, a Kineto trace (*.json[.gz]) or a "
                  "folder holding them (the --output of the profiled run)";
      out.runs.clear();
      return out;
    }
    if (fs::is_directory(given, ec)) {
      fs::path normalized = fs::absolute(given, ec).lexically_normal();
      if (!normalized.has_filename()) normalized = normalized.parent_path();
      if (normalized.filename().string().starts_with("PROF_")) {
        walker.AddRaw(given);
      } else {
        const size_t before = out.runs.size();
        walker.Walk(given, 0);
        if (out.runs.size() == before) {
          out.error = "no PROF_* directory or Kineto trace (*.json[.gz]) in '" + path + "' or " +
                      std::to_string(kMaxDiscoveryDepth) +
                      " levels below it; pass the --output of a run profiled with aiprof, a "
                      "torch.profiler trace, or a folder holding them";
          out.runs.clear();
          return out;
        }
      }
      continue;
    }
    const size_t before = out.runs.size();
    if (!walker.AddTrace(given)) {
      out.error = "'" + path +
                  "' is neither a directory nor a trace this version reads (Kineto / "
                  "torch.profiler / Chrome JSON, plain or .gz); pass a PROF_* directory, a "
                  "trace, or a folder holding them";
      out.runs.clear();
      return out;
    }
    if (out.runs.size() > before) {
      walker.MarkGiven();
      ++walker.given_traces_;
    }
  }
  walker.DropCopiesOfRawRuns();
  std::stable_sort(out.runs.begin(), out.runs.end(),
                   [](const RunInput& a, const RunInput& b) { return a.path < b.path; });
  const std::vector<std::vector<size_t>> groups = RunsOfOneProcess(out.runs);
  for (const std::vector<size_t>& group : groups) {
    const RunInput& first = out.runs[group.front()];
    std::string who = first.pid >= 0 ? "pid " + std::to_string(first.pid) : "";
    if (!first.host.empty() && first.pid >= 0) who += " on " + first.host;
    if (who.empty()) who = "worker " + first.worker;
    out.notes.push_back(who + " has " + std::to_string(group.size()) +
                        " runs (profiling windows); each is analysed on its own");
  }
  return out;
}

std::vector<std::vector<size_t>> RunsOfOneProcess(const std::vector<RunInput>& runs) {
  std::map<std::string, std::vector<size_t>> by_process;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunInput& run = runs[i];
    std::string key;
    if (run.pid >= 0) {
      key = "p" + run.host + '\n' + std::to_string(run.pid);
    } else if (!run.worker.empty()) {
      key = "w" + run.worker;
    } else {
      continue;
    }
    by_process[key].push_back(i);
  }
  std::vector<std::vector<size_t>> groups;
  for (auto& [key, members] : by_process) {
    if (members.size() > 1) groups.push_back(std::move(members));
  }
  return groups;
}

}  // namespace aiprof::model
