// /api/advice: the tuning advice over the one AnalysisSet, as advice.json (the export's writer,
// so the UI and `aiprof export` show the same findings in the same order).
#include "server/advice_api.h"

#include <filesystem>

#include "analysis/advice/engine.h"
#include "export/advice/advice_writers.h"

namespace aiprof::server {

const std::string& AdviceApi::Answer() const {
  return json_.Get([this] {
    namespace advice = analysis::advice;
    // The export labels a profile by its PROF_* directory; several make one model here.
    std::string label = prof_dirs_.empty()
                            ? std::string("run")
                            : std::filesystem::path(prof_dirs_.front()).filename().string();
    if (prof_dirs_.size() > 1) label += " and " + std::to_string(prof_dirs_.size() - 1) + " more";
    advice::AdviceInput input;
    input.profiles.push_back(advice::MakeProfileInput(model_, analyses_.Analyses(), label));
    return exporter::AdviceJsonText(advice::RunAdvice(input, advice::Thresholds::Defaults()));
  });
}

}  // namespace aiprof::server
