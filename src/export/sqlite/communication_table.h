// The COMMUNICATION_OP table of the SQLite export (docs/db-schema.md): one row per
// communication operation of model/communication.h, msprof's columns first, then
// aiprof's (bytes, rank, source, algorithm bandwidth). Kept apart from the main writer so
// the table can change without touching it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/communication.h"
#include "model/model.h"

namespace aiprof::exporter {

class Database;  // database.h

extern const char* const kCommunicationOpSchema;

// Creates the table and inserts `ops` (the AnalysisSet's classification) inside the
// caller's transaction. `string_id` gives the STRING_IDS id of a text that is not a model
// string (op type, dtype, source).
bool WriteCommunicationOpTable(Database& database, const model::Model& model,
                               const std::vector<model::CommOp>& ops,
                               const std::function<int64_t(std::string_view)>& string_id,
                               std::string* error);

}  // namespace aiprof::exporter
