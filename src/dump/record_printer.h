// Prints the contents of one raw data file as text, one line per chunk, string and record.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace aiprof::dump {

struct DumpOptions {
  bool summary_only = false;  // counts per kind and thread, no record lines
  uint64_t max_records = UINT64_MAX;
};

struct DumpTotals {
  uint64_t records = 0;
  uint64_t drops = 0;
  bool clean = true;
};

// Returns false if the file cannot be opened (the reason is printed).
bool DumpFile(const std::string& path, const DumpOptions& options, std::ostream& out,
              DumpTotals* totals);

}  // namespace aiprof::dump
