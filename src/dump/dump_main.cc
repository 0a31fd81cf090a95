// aiprof-dump: prints the raw records of a data file or of every data file in a PROF_*
// directory (strings resolved, kinds named, drop counts, the reader's report). A debugging
// aid for the raw format; exit status 1 when a file is unreadable or damaged.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "dump/record_printer.h"

namespace {

void PrintUsage() {
  std::cerr << "usage: aiprof-dump [--summary] [--max-records N] <file.data | PROF_dir>...\n"
               "  Prints every chunk and record of aiprof raw data files.\n";
}

std::vector<std::string> DataFiles(const std::string& path) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code error;
  if (!fs::is_directory(path, error)) return {path};
  for (const auto& entry : fs::recursive_directory_iterator(path, error)) {
    if (entry.is_regular_file() && entry.path().extension() == ".data") {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  aiprof::dump::DumpOptions options;
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--summary") {
      options.summary_only = true;
    } else if (arg == "--max-records" && i + 1 < argc) {
      options.max_records = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "-h" || arg == "--help") {
      PrintUsage();
      return 0;
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << "aiprof-dump: unknown option '" << arg << "'\n";
      PrintUsage();
      return 2;
    } else {
      inputs.push_back(arg);
    }
  }
  if (inputs.empty()) {
    PrintUsage();
    return 2;
  }
  aiprof::dump::DumpTotals totals;
  bool all_opened = true;
  for (const std::string& input : inputs) {
    std::vector<std::string> files = DataFiles(input);
    if (files.empty()) {
      std::cerr << "aiprof-dump: no .data files under '" << input
                << "' (expected a PROF_* directory or a raw data file)\n";
      all_opened = false;
    }
    for (const std::string& file : files) {
      all_opened &= aiprof::dump::DumpFile(file, options, std::cout, &totals);
    }
  }
  std::cout << "total records " << totals.records << ", drops " << totals.drops << "\n";
  return all_opened && totals.clean ? 0 : 1;
}
