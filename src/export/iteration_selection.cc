#include "export/iteration_selection.h"

#include <ostream>
#include <string>

namespace aiprof::exporter {

bool IterationSelection::Select(const model::Model& parsed,
                                const std::optional<model::StepRange>& iterations,
                                std::string_view command, std::string_view where,
                                std::ostream& err) {
  selected_ = &parsed;
  if (!iterations) return true;
  std::string error;
  if (!model::FilterToSteps(parsed, *iterations, &filtered_, &error)) {
    err << command << ": " << where << ": " << error << "\n";
    return false;
  }
  selected_ = &filtered_;
  return true;
}

}  // namespace aiprof::exporter
