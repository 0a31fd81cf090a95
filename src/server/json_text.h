// The UI server's JSON text: the exporters' writer (export/json_text.h), so a response and
// an exported file escape a string, invalid UTF-8 included, the same way.
#pragma once

#include "export/json_text.h"

namespace aiprof::server {

using exporter::AppendJsonNumber;
using exporter::AppendJsonString;

}  // namespace aiprof::server
