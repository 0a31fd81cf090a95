#include "export/sqlite/communication_table.h"

#include "export/sqlite/database.h"
#include "export/sqlite/process_key.h"
#include "model/communication.h"

namespace aiprof::exporter {

const char* const kCommunicationOpSchema = R"sql(
CREATE TABLE COMMUNICATION_OP(opName INTEGER, startNs INTEGER, endNs INTEGER,
                              connectionId INTEGER, groupName INTEGER, opId INTEGER PRIMARY KEY,
                              relay INTEGER, retry INTEGER, dataType INTEGER, algType INTEGER,
                              count INTEGER, opType INTEGER, deviceId INTEGER, rankSize INTEGER,
                              globalTid INTEGER, rankId INTEGER, outCount INTEGER, bytes INTEGER,
                              source INTEGER, backend INTEGER, algBandwidth REAL);
)sql";

namespace {

void BindOptional(sqlite3_stmt* statement, int index, int64_t value) {
  if (value < 0) {
    sqlite3_bind_null(statement, index);
  } else {
    sqlite3_bind_int64(statement, index, value);
  }
}

}  // namespace

bool WriteCommunicationOpTable(Database& database, const model::Model& m,
                               const std::vector<model::CommOp>& ops,
                               const std::function<int64_t(std::string_view)>& string_id,
                               std::string* error) {
  sqlite3* db = database.handle();
  auto fail = [&](const char* what) {
    *error = std::string("COMMUNICATION_OP ") + what + ": " + sqlite3_errmsg(db);
    return false;
  };
  if (sqlite3_exec(db, kCommunicationOpSchema, nullptr, nullptr, nullptr) != SQLITE_OK) {
    return fail("create");
  }
  sqlite3_stmt* insert = nullptr;
  if (sqlite3_prepare_v2(db,
                         "INSERT INTO COMMUNICATION_OP VALUES"
                         "(?,?,?,NULL,NULL,?,NULL,NULL,?,NULL,?,?,?,?,?,?,?,?,?,?,?)",
                         -1, &insert, nullptr) != SQLITE_OK) {
    return fail("prepare");
  }
  bool ok = true;
  for (const model::CommOp& op : ops) {
    const uint32_t row = op.slice;
    int index = 0;
    sqlite3_bind_int64(insert, ++index, m.slices.name[row]);
    sqlite3_bind_int64(insert, ++index, m.slices.ts[row]);
    sqlite3_bind_int64(insert, ++index, m.slices.end[row]);
    sqlite3_bind_int64(insert, ++index, row);
    if (op.dtype.empty()) {
      sqlite3_bind_null(insert, ++index);
    } else {
      sqlite3_bind_int64(insert, ++index, string_id(op.dtype));
    }
    BindOptional(insert, ++index, op.in_nelems);
    sqlite3_bind_int64(insert, ++index, string_id(model::CommOpTypeName(op.type)));
    sqlite3_bind_int64(insert, ++index, op.device_id);
    BindOptional(insert, ++index, op.group_size);
    sqlite3_bind_int64(insert, ++index, GlobalTid(m, m.ThreadOfSlice(row)));
    BindOptional(insert, ++index, op.rank);
    BindOptional(insert, ++index, op.out_nelems);
    BindOptional(insert, ++index, op.bytes);
    sqlite3_bind_int64(insert, ++index, string_id(model::CommSourceName(op.source)));
    sqlite3_bind_int64(insert, ++index, string_id(op.backend));
    const double algbw = model::AlgorithmBandwidthGBps(op, m.slices.dur(row));
    if (algbw < 0) {
      sqlite3_bind_null(insert, ++index);
    } else {
      sqlite3_bind_double(insert, ++index, algbw);
    }
    if (sqlite3_step(insert) != SQLITE_DONE) {
      ok = fail("insert");
      break;
    }
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  return ok;
}

}  // namespace aiprof::exporter
