// Reserving a table's rows once, from an importer's upper bound of what a file holds, so the
// columns do not regrow by doubling (copies, page faults, twice the memory at the peak).
// Reserving only claims address space; pages are touched as rows arrive.
#pragma once

#include <cstddef>

#include "model/huge_pages.h"
#include "model/model.h"

namespace aiprof::model {

// Every column of the slice table, `rows` each.
inline void ReserveSliceRows(SliceTable& s, size_t rows) {
  ReserveOnHugePages(s.ts, rows);
  ReserveOnHugePages(s.end, rows);
  ReserveOnHugePages(s.track, rows);
  ReserveOnHugePages(s.name, rows);
  ReserveOnHugePages(s.category, rows);
  ReserveOnHugePages(s.args, rows);
  ReserveOnHugePages(s.depth, rows);
  ReserveOnHugePages(s.parent, rows);
  ReserveOnHugePages(s.flags, rows);
}

}  // namespace aiprof::model
