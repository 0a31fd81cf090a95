// Pluggable record importers: each data source turns its own record kinds into model rows
// without touching the parser. A source adds one file `src/model/importers/<name>_importer.cc`
// containing
//
//   AIPROF_DEFINE_IMPORTER(<name>) { return std::make_unique<MyImporter>(); }
//
// CMake globs `importers/*_importer.cc` and generates the registry that calls every factory,
// so no shared file is edited. A factory is called once per raw file being parsed (files are
// parsed in parallel), so an importer may keep per-file state (open ranges, correlation maps)
// in plain members without locking.
//
// Kind ranges (src/format/records.h): core 1-31 (core_importer.cc), host 32-47, torch 48-79,
// cuda 80-127, comm 128-143. An importer claims the kinds it understands; records of kinds
// nobody claims are counted as unknown and skipped.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "format/reader.h"
#include "model/model.h"

namespace aiprof::model {

// Builds one argument set; Commit() appends it to the ArgTable and returns its id.
class ArgSetBuilder {
 public:
  explicit ArgSetBuilder(Model* model) : model_(model) {}
  ArgSetBuilder& Int(std::string_view key, int64_t value);
  ArgSetBuilder& UInt(std::string_view key, uint64_t value);
  ArgSetBuilder& Double(std::string_view key, double value);
  ArgSetBuilder& String(std::string_view key, StringId value);
  ArgSetBuilder& String(std::string_view key, std::string_view value);
  // `json` is written verbatim into JSON outputs (e.g. Input Dims "[[32, 64], []]").
  ArgSetBuilder& Json(std::string_view key, std::string_view json);
  uint32_t Commit();  // 0 when empty

 private:
  void Add(std::string_view key, ArgType type, uint64_t bits);
  Model* model_;
  bool open_ = false;
};

// A slice or instant end that will only be known later (e.g. a kernel matched by correlation).
inline constexpr int64_t kOpenEnd = INT64_MIN;

// What an importer sees while one raw file is parsed. Timestamps passed in are in the
// file's clock (ticks); the parser converts every table to epoch ns after the file is read.
inline const std::vector<StringId> kNoFileStrings;

class ImportContext {
 public:
  explicit ImportContext(Model* model) : model_(model) {}
  ImportContext(const ImportContext&) = delete;
  ImportContext& operator=(const ImportContext&) = delete;

  Model& model() { return *model_; }
  uint32_t process() const { return process_; }  // host process that wrote the file
  // Thread of the current Events chunk and its main track (created on first use, so a
  // process-wide chunk of clock samples adds no thread).
  uint32_t thread() {
    if (thread_ == kNoRow) thread_ = Thread(process_, chunk_tid_);
    return thread_;
  }
  uint32_t track() {
    if (track_ == kNoRow) track_ = MainTrack(thread());
    return track_;
  }

  // Model string id of a string id of this raw file (strings precede their use).
  StringId FileString(uint32_t file_id) const {
    if (file_id < file_strings_->size()) return (*file_strings_)[file_id];
    if (sparse_file_strings_ == nullptr) return kNoString;
    auto found = sparse_file_strings_->find(file_id);
    return found != sparse_file_strings_->end() ? found->second : kNoString;
  }
  StringId Intern(std::string_view text) { return model_->strings.Intern(text); }

  uint32_t Thread(uint32_t process_row, uint32_t tid);  // find or create
  uint32_t MainTrack(uint32_t thread_row);
  // A process standing for device `device_id` of this host (label "GPU n").
  uint32_t DeviceProcess(int32_t device_id, std::string_view name);
  void SetThreadName(uint32_t thread_row, StringId name);

  ArgSetBuilder Args() { return ArgSetBuilder(model_); }
  // end_ticks may be kOpenEnd and set later with EndSlice.
  uint32_t AddSlice(uint32_t track, uint64_t ts_ticks, int64_t end_ticks, StringId name,
                    StringId category, uint32_t args = 0);
  void EndSlice(uint32_t slice, uint64_t end_ticks);
  void SetSliceArgs(uint32_t slice, uint32_t args) { model_->slices.args[slice] = args; }
  uint32_t AddInstant(uint32_t track, uint64_t ts_ticks, StringId name, StringId category,
                      uint32_t args = 0);
  uint32_t CounterSeries(StringId name, uint32_t process_row, uint16_t scope, uint32_t instance,
                         StringId unit);
  void AddCounter(uint32_t series, uint64_t ts_ticks, double value);
  // Flows are matched by (category, key) across every file of the model, so a launch on a
  // host thread links to a kernel imported from a device file.
  void AddFlowEndpoint(StringId category, uint64_t key, uint32_t slice, bool is_start);

  // --- used by the parser ---
  // Dense ids index `table`; ids beyond what the file could hold densely (a corrupt or hostile
  // file) are looked up in `sparse`, so memory follows the file's size, not its ids.
  void SetFileStrings(const std::vector<StringId>* table,
                      const std::unordered_map<uint32_t, StringId>* sparse = nullptr) {
    file_strings_ = table;
    sparse_file_strings_ = sparse;
  }
  void BindChunk(uint32_t tid) {
    chunk_tid_ = tid;
    thread_ = kNoRow;
    track_ = kNoRow;
  }
  void SetProcess(uint32_t process_row) { process_ = process_row; }
  struct FlowEndpoint {
    StringId category;
    uint64_t key;
    uint32_t slice;
    bool is_start;
  };
  std::vector<FlowEndpoint>& flow_endpoints() { return flow_endpoints_; }

 private:
  Model* model_;
  uint32_t process_ = kNoRow;
  uint32_t thread_ = kNoRow;
  uint32_t track_ = kNoRow;
  uint32_t chunk_tid_ = 0;
  const std::vector<StringId>* file_strings_ = &kNoFileStrings;
  const std::unordered_map<uint32_t, StringId>* sparse_file_strings_ = nullptr;
  std::vector<FlowEndpoint> flow_endpoints_;
  std::unordered_map<uint64_t, uint32_t> thread_index_;  // process << 32 | tid → row
  std::unordered_map<int32_t, uint32_t> device_index_;   // device id → process row
  std::vector<uint32_t> main_track_;                     // thread row → track
};

class RecordImporter {
 public:
  virtual ~RecordImporter() = default;
  // True for each record kind this importer handles.
  virtual bool Handles(uint8_t kind) const = 0;
  virtual void Import(const format::RecordView& record, ImportContext& context) = 0;
  // Called once after the last chunk of the file: close what is still open.
  virtual void Finish(ImportContext& context, uint64_t last_ticks) {
    (void)context;
    (void)last_ticks;
  }
};

using ImporterFactory = std::unique_ptr<RecordImporter> (*)();

// Every importer compiled into aiprof_model (generated from importers/*_importer.cc).
std::span<const ImporterFactory> RegisteredImporters();

}  // namespace aiprof::model

#define AIPROF_DEFINE_IMPORTER(name) \
  std::unique_ptr<::aiprof::model::RecordImporter> aiprof_make_##name##_importer()
