// One export at a time per PROF_* directory. Two `aiprof export` runs of one directory used
// to write the same files at once: one silently replaced the other's, or both failed on each
// other's temporary files. An export now holds an exclusive lock (flock) on
// <PROF_*>/.export.lock while it writes; a second one says which export runs and waits. Once
// it holds the lock it removes what an interrupted export left (*.tmp files, which may be
// hundreds of MB), and it picks a timestamp later than the previous export's, so two exports
// (different --iteration-id, say) never share file names.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace aiprof::exporter {

class ExportLocks {
 public:
  ExportLocks() = default;
  ~ExportLocks();
  ExportLocks(const ExportLocks&) = delete;
  ExportLocks& operator=(const ExportLocks&) = delete;

  // Locks every directory (in sorted order, so two exports never wait for each other),
  // waiting for exports that hold them and saying so on `err`. A directory that cannot be
  // locked (read-only) is skipped: nothing will be written there either.
  void Acquire(std::vector<std::string> prof_dirs, std::ostream& err);
  // The latest timestamp an earlier export of these directories used ("" if none).
  const std::string& previous_timestamp() const { return previous_timestamp_; }
  // Records this export's timestamp in every lock file, for the next export.
  void Record(const std::string& timestamp, const std::vector<std::string>& output_dirs);

 private:
  struct Held {
    std::string path;
    int fd;
  };
  std::vector<Held> held_;
  std::string previous_timestamp_;
};

// Removes the temporary files an interrupted export left in `dir` and below (*.tmp, and
// SQLite's *.tmp-journal beside them).
void RemoveExportLeftovers(const std::string& dir);

}  // namespace aiprof::exporter
