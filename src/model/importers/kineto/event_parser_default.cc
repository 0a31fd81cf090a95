// The event parser for the build's baseline instruction set (simdjson's builtin
// implementation for it): used where the AVX2 one (event_parser_haswell.cc) cannot run.
#include <simdjson.h>

#include <bit>
#include <memory>
#include <string>

#include "model/importers/kineto/event_reader.h"

#define AIPROF_EVENT_PARSER_NAMESPACE default_parser
#include "model/importers/kineto/event_parser.inc"
