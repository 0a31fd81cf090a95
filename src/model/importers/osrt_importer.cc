// OS runtime calls (kOsrtCall, src/format/records_cpu.h) → slices of category "osrt" on
// the calling thread, with the call's return value.
#include "format/records_cpu.h"
#include "model/importer.h"

namespace aiprof::model {
namespace {

class OsrtImporter : public RecordImporter {
 public:
  bool Handles(uint8_t kind) const override {
    return kind == static_cast<uint8_t>(format::CpuRecordKind::kOsrtCall);
  }

  void Import(const format::RecordView& record, ImportContext& context) override {
    const auto* call = record.ExtAs<format::OsrtCall>(0);
    if (call == nullptr) return;
    if (category_ == kNoString) {
      category_ = context.Intern("osrt");
    }
    uint32_t args = context.Args().Int("result", call->result).Commit();
    context.AddSlice(context.track(), record.header->ts, static_cast<int64_t>(call->end),
                     context.FileString(record.header->arg), category_, args);
  }

 private:
  StringId category_ = kNoString;
};

}  // namespace
}  // namespace aiprof::model

AIPROF_DEFINE_IMPORTER(osrt) {
  return std::make_unique<aiprof::model::OsrtImporter>();
}
