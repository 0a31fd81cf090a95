// Shared bookkeeping of the rules that judge each profile on its own: every profile is
// either not evaluated (and why), or evaluated to a figure compared with a threshold. The
// finding is triggered when any profile crossed it; its impact is the largest figure that
// did, its severity high from the rule's `high` level on, medium below.
#pragma once

#include <string>
#include <vector>

#include "analysis/advice/advice.h"

namespace aiprof::analysis::advice {

class PerProfile {
 public:
  PerProfile(const AdviceInput& input, Finding* finding) : input_(input), finding_(finding) {}

  // "rank 1: " when several profiles were given, else "".
  std::string Prefix(size_t profile) const;
  void NotEvaluated(size_t profile, const std::string& why);
  // `value`: the figure compared (a share, 0..1 where it is one); `detail`: what was measured.
  void Evaluated(size_t profile, double value, bool triggered, const std::string& detail);
  // Sets the finding's status, severity (high when the largest triggering figure is at least
  // `high`), impact (that figure, at most 1) and detail.
  void Finish(double high);

  bool any_triggered() const { return triggered_ > 0; }

 private:
  const AdviceInput& input_;
  Finding* finding_;
  std::vector<std::string> not_evaluated_, passed_, triggered_lines_;
  size_t triggered_ = 0;
  double worst_ = 0;
};

// Appends a table to the finding, or returns the one with that title (rows of several
// profiles share a table; the reference holds until the next AddTable); `columns` gets a leading
// "profile" column when several profiles were given, and each row then starts with the profile's
// label.
EvidenceTable& AddTable(Finding* finding, const std::string& title,
                        std::vector<std::string> columns);
void AddRow(const AdviceInput& input, size_t profile, EvidenceTable* table,
            std::vector<std::string> row, EvidenceTarget target = {});

}  // namespace aiprof::analysis::advice
