// A value computed on first use, once, by whichever request thread gets there first: the
// UI's answers that cost a pass over the model (the analyses, the symbolised CPU samples,
// the advice, the comparison) are built when first asked for, then served as they are.
#pragma once

#include <mutex>

namespace aiprof::server {

template <typename T>
class ComputedOnce {
 public:
  template <typename Compute>
  const T& Get(Compute compute) const {
    std::call_once(once_, [&] { value_ = compute(); });
    return value_;
  }

 private:
  mutable std::once_flag once_;
  mutable T value_{};
};

}  // namespace aiprof::server
