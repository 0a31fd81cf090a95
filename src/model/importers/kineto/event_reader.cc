#include "model/importers/kineto/event_reader.h"

#include <cmath>
#include <cstdlib>

namespace aiprof::model::kineto {
namespace haswell_parser {
std::unique_ptr<EventParser> MakeEventParser();  // nullptr where not built
bool Supported();
}  // namespace haswell_parser
namespace default_parser {
std::unique_ptr<EventParser> MakeEventParser();
}  // namespace default_parser

bool MicrosToNs(std::string_view text, int64_t* ns) {
  size_t at = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) ++at;
  if (at >= text.size()) return false;
  int64_t whole = 0;
  size_t digits = 0;
  for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, ++digits) {
    if (whole > (INT64_MAX / 1000 - 9) / 10) return false;  // beyond what ns can hold
    whole = whole * 10 + (text[at] - '0');
  }
  int64_t fraction = 0;
  if (at < text.size() && text[at] == '.') {
    ++at;
    int place = 100;
    bool round_up = false;
    size_t fraction_digits = 0;
    for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, ++fraction_digits) {
      if (place > 0) {
        fraction += (text[at] - '0') * place;
        place /= 10;
      } else if (fraction_digits == 3) {
        round_up = text[at] >= '5';
      }
    }
    if (fraction_digits == 0) return false;
    fraction += round_up ? 1 : 0;
  }
  if (digits == 0) return false;
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    // Exponent form: rare, read as a double.
    char* end = nullptr;
    const std::string copy(text);
    const double micros = std::strtod(copy.c_str(), &end);
    if (end == copy.c_str() || !std::isfinite(micros) || std::fabs(micros) > 9e15) return false;
    *ns = std::llround(micros * 1000.0);
    return true;
  }
  if (at != text.size()) return false;
  const int64_t value = whole * 1000 + fraction;
  *ns = negative ? -value : value;
  return true;
}

EventReader::EventReader() {
  if (haswell_parser::Supported()) parser_ = haswell_parser::MakeEventParser();
  if (parser_ == nullptr) parser_ = default_parser::MakeEventParser();
}

EventReader::~EventReader() = default;

bool EventReader::Read(std::string_view json, size_t padding, Event* event, std::string* error) {
  return parser_->Read(json, padding, event, error);
}

}  // namespace aiprof::model::kineto
