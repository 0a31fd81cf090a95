// Kineto / torch.profiler JSON traces (`*.pt.trace.json[.gz]` from libkineto's
// ChromeTraceLogger, torch_npu's trace_view.json, aiprof's own Kineto writer, the legacy
// profiler's export_chrome_trace array), plain or gzip, into the one model: streamed
// (importers/kineto/trace_scanner.h: no DOM of the file), each event read with simdjson
// On-Demand (event_reader.h) and turned into the rows the raw importers make
// (trace_builder.h); the top-level members become process metadata and device rows
// (trace_header.h). What is malformed is skipped and counted in the file's report; what is
// read but has no model row is listed in its notes (docs/import.md).
#include <sys/stat.h>

#include <algorithm>

#include "model/file_importer.h"
#include "model/file_input.h"
#include "model/huge_pages.h"
#include "model/importers/kineto/event_reader.h"
#include "model/importers/kineto/trace_builder.h"
#include "model/importers/kineto/trace_header.h"
#include "model/importers/kineto/trace_scanner.h"
#include "model/table_reserve.h"

namespace aiprof::model {
namespace {

using kineto::TraceScanner;

std::string_view SkipSpace(std::string_view text) {
  if (text.starts_with("\xef\xbb\xbf")) text.remove_prefix(3);
  while (!text.empty() &&
         (text[0] == ' ' || text[0] == '\n' || text[0] == '\r' || text[0] == '\t')) {
    text.remove_prefix(1);
  }
  return text;
}

// An object with a traceEvents member, or an array of event objects (the legacy profiler's
// and chrome://tracing's array form).
bool Sniff(const std::string& path, std::string_view head) {
  (void)path;
  const std::string_view text = SkipSpace(head);
  if (text.starts_with("{")) {
    return text.find("\"traceEvents\"") != std::string_view::npos ||
           (text.find("\"schemaVersion\"") != std::string_view::npos &&
            text.find("\"deviceProperties\"") != std::string_view::npos);
  }
  if (text.starts_with("[")) {
    const std::string_view rest = SkipSpace(text.substr(1));
    return rest.starts_with("]") ||
           (rest.starts_with("{") && text.find("\"ph\"") != std::string_view::npos);
  }
  return false;
}

// Rows reserved once from the file's size (address space only; pages are touched as rows
// arrive), so the columns do not regrow by doubling: a Kineto event is at least ~150 bytes
// of JSON and an argument at least ~20.
void Reserve(Model& model, uint64_t json_bytes) {
  const size_t events = json_bytes / 150 + 16, args = json_bytes / 20 + 16;
  ReserveSliceRows(model.slices, events);
  ReserveOnHugePages(model.args.key, args);
  ReserveOnHugePages(model.args.type, args);
  ReserveOnHugePages(model.args.value, args);
  ReserveOnHugePages(model.args.set_begin, events);
}

// The uncompressed size a gzip file records in its last four bytes (modulo 2^32), or an
// estimate for larger files.
uint64_t JsonBytes(const std::string& path, const FileInput& input) {
  if (!input.compressed()) return input.file_size();
  uint64_t size = input.file_size() * 5;
  if (FILE* file = std::fopen(path.c_str(), "rb")) {
    unsigned char tail[4];
    if (std::fseek(file, -4, SEEK_END) == 0 && std::fread(tail, 1, 4, file) == 4) {
      const uint64_t recorded = tail[0] | tail[1] << 8 | tail[2] << 16 | uint64_t{tail[3]} << 24;
      if (recorded >= input.file_size()) size = recorded;
    }
    std::fclose(file);
  }
  return size;
}

class KinetoFile : public TraceScanner::Handler {
 public:
  KinetoFile(Model* model, format::ReadReport* report)
      : builder_(model, &header_), report_(*report) {}

  void OnEvent(std::string_view element, uint64_t offset) override {
    std::string why;
    if (!reader_.Read(element, TraceScanner::kPadding, &event_, &why) ||
        !builder_.Add(event_, &why)) {
      ++report_.chunks_skipped;
      report_.bytes_skipped += element.size();
      report_.AddProblem("event at byte " + std::to_string(offset) + ": " + why + "; skipped");
      return;
    }
    ++report_.chunks_read;
  }
  void OnTopLevel(std::string_view key, std::string_view value, uint64_t offset) override {
    (void)offset;
    header_.Add(key, value);
  }

  const kineto::TraceHeader& header() const { return header_; }
  kineto::TraceBuilder& builder() { return builder_; }

 private:
  kineto::TraceHeader header_;
  kineto::TraceBuilder builder_;
  kineto::EventReader reader_;
  kineto::Event event_;
  format::ReadReport& report_;
};

Fragment Parse(const std::string& path) {
  Fragment fragment;
  Model& model = fragment.model;
  model.files.push_back({path, {}, {}});
  FileReport& file_report = model.files.back();
  file_report.report.unit = "events";
  FileInput input;
  if (!input.Open(path, &file_report.error)) return fragment;
  fragment.opened = true;
  fragment.realtime = true;  // Kineto writes epoch times: no clock to fit
  Reserve(model, JsonBytes(path, input));

  KinetoFile file(&model, &file_report.report);
  TraceScanner scanner(input);
  const TraceScanner::Report scan = scanner.Scan(file);
  format::ReadReport& report = file_report.report;
  report.bytes_skipped += scan.skipped_bytes;
  report.chunks_skipped += scan.skipped_regions;
  report.truncated = scan.truncated;
  for (const std::string& problem : scan.problems) report.AddProblem(problem);
  for (uint64_t i = scan.problems.size(); i < scan.problems_total; ++i) ++report.problems_total;
  for (const std::string& problem : file.header().problems) report.AddProblem(problem);
  if (!scan.found_events && !scan.not_json) {
    report.AddProblem("no traceEvents array: the file holds no events");
  }

  struct stat info {};
  int64_t mtime_ns = 0;
  if (stat(path.c_str(), &info) == 0) {
    mtime_ns = info.st_mtim.tv_sec * 1'000'000'000LL + info.st_mtim.tv_nsec;
  }
  file.builder().Finish(path, mtime_ns, &report.notes);
  model.records = file.builder().imported();
  model.raw_bytes = input.file_size();
  const ProcessTable& p = model.processes;
  fragment.hostname = p.size() > 0 ? std::string(model.Str(p.host[0])) : "";
  return fragment;
}

}  // namespace
}  // namespace aiprof::model

AIPROF_DEFINE_FILE_IMPORTER(kineto) {
  static const aiprof::model::FileImporter importer{
      "kineto", "Kineto / torch.profiler / Chrome JSON trace (.json, .json.gz)",
      &aiprof::model::Sniff, &aiprof::model::Parse};
  return importer;
}
