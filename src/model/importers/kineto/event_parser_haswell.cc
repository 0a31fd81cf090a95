// The event parser built for AVX2 (simdjson's "haswell" implementation): this file alone is
// compiled with -mavx2 -mbmi -mpclmul -mlzcnt (src/model/CMakeLists.txt) and is only used
// when the CPU has them.
#include <bit>
#include <memory>
#include <string>

#include "model/importers/kineto/event_reader.h"

#if defined(__x86_64__) && defined(__AVX2__)
#include <simdjson.h>

#define AIPROF_EVENT_PARSER_NAMESPACE haswell_parser
#include "model/importers/kineto/event_parser.inc"

namespace aiprof::model::kineto::haswell_parser {
bool Supported() {
  const simdjson::implementation* haswell = simdjson::get_available_implementations()["haswell"];
  return haswell != nullptr && haswell->supported_by_runtime_system();
}
}  // namespace aiprof::model::kineto::haswell_parser
#else
namespace aiprof::model::kineto::haswell_parser {
std::unique_ptr<EventParser> MakeEventParser() {
  return nullptr;
}
bool Supported() {
  return false;
}
}  // namespace aiprof::model::kineto::haswell_parser
#endif
