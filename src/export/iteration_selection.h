// `--iteration-id` as every command applies it: the model cut to the selected steps
// (model::FilterToSteps, which selects with model::SelectSteps), or the whole model.
#pragma once

#include <iosfwd>
#include <optional>
#include <string_view>

#include "model/filter.h"
#include "model/model.h"

namespace aiprof::exporter {

class IterationSelection {
 public:
  // Selects from `parsed` (which must outlive this). False, with "<command>: <where>:
  // <why>" written to `err`, when the selection selects no step.
  bool Select(const model::Model& parsed, const std::optional<model::StepRange>& iterations,
              std::string_view command, std::string_view where, std::ostream& err);
  // The model to analyse and export: the selection, or the whole parsed model.
  const model::Model& model() const { return *selected_; }

 private:
  model::Model filtered_;
  const model::Model* selected_ = nullptr;
};

}  // namespace aiprof::exporter
