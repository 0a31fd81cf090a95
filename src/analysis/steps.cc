#include "analysis/steps.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace aiprof::analysis {

std::string_view StepSourceName(StepSource source) {
  switch (source) {
    case StepSource::kStepRecords:
      return "step records (prof.step / aiprofStepBegin)";
    case StepSource::kProfilerStepRanges:
      return "ProfilerStep#N ranges";
    case StepSource::kMarkerRanges:
      return "mstx/NVTX step ranges";
    case StepSource::kNone:
      break;
  }
  return "none (whole collection)";
}

namespace {

bool ParseNumber(std::string_view text, uint64_t* value) {
  if (text.empty()) return false;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size();
}

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

}  // namespace

bool ParseProfilerStepName(std::string_view name, uint64_t* step) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  return name.starts_with(kPrefix) && ParseNumber(name.substr(kPrefix.size()), step);
}

bool ParseMarkerStepName(std::string_view name, uint64_t* step) {
  for (std::string_view word : {std::string_view("step"), std::string_view("iteration")}) {
    if (!StartsWithNoCase(name, word)) continue;
    std::string_view rest = name.substr(word.size());
    size_t separators = 0;
    while (separators < rest.size() &&
           std::string_view(" #_:-").find(rest[separators]) != std::string_view::npos) {
      ++separators;
    }
    return ParseNumber(rest.substr(separators), step);
  }
  return false;
}

StepList FindSteps(const model::Model& model, const std::optional<model::StepRange>& iterations) {
  StepList list;
  const model::StepTable& table = model.steps;
  const model::SliceTable& s = model.slices;
  for (size_t i = 0; i < table.size(); ++i) {
    list.steps.push_back(
        {table.step[i], table.thread[i], table.slice[i], table.ts[i], table.end[i]});
  }
  if (!list.steps.empty()) list.source = StepSource::kStepRecords;
  if (list.steps.empty()) {
    // Names are parsed once per string, not per slice.
    std::vector<int8_t> parsed(model.strings.size(), -1);
    std::vector<uint64_t> number(model.strings.size(), 0);
    for (uint32_t row = 0; row < s.size(); ++row) {
      model::StringId name = s.name[row];
      if (parsed[name] < 0) parsed[name] = ParseProfilerStepName(model.Str(name), &number[name]);
      if (!parsed[name]) continue;
      // Kineto repeats each ProfilerStep range on the GPU streams it launched work on
      // (category gpu_user_annotation); the step is the host's range.
      const uint32_t thread = model.ThreadOfSlice(row);
      if (model.processes.device_id[model.threads.process[thread]] >= 0) continue;
      list.steps.push_back({number[name], thread, row, s.ts[row], s.end[row]});
    }
    if (!list.steps.empty()) list.source = StepSource::kProfilerStepRanges;
  }
  if (list.steps.empty()) {
    for (size_t i = 0; i < model.markers.size(); ++i) {
      if (model.markers.is_instant[i]) continue;
      uint32_t row = model.markers.row[i];
      uint64_t step = 0;
      if (ParseMarkerStepName(model.Str(s.name[row]), &step)) {
        list.steps.push_back({step, model.ThreadOfSlice(row), row, s.ts[row], s.end[row]});
      }
    }
    if (!list.steps.empty()) list.source = StepSource::kMarkerRanges;
  }
  if (iterations) {
    std::erase_if(list.steps, [&](const StepSpan& r) {
      return r.step < iterations->first || r.step > iterations->last;
    });
  }
  std::sort(list.steps.begin(), list.steps.end(), [](const StepSpan& a, const StepSpan& b) {
    if (a.thread != b.thread) return a.thread < b.thread;
    return a.begin_ns < b.begin_ns;
  });
  return list;
}

}  // namespace aiprof::analysis
