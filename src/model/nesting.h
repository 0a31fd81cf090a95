// Gives every slice its depth and parent. Slices of one track must nest: a slice that starts
// inside another and ends after it (cross-thread start/end ranges, clock jitter between
// sources) is moved to an extra lane of the same thread, flagged kSliceMovedLane, and the
// lane is resolved again, so no exporter ever sees a broken stack.
#pragma once

#include "model/model.h"

namespace aiprof::model {

void ResolveNesting(Model& model);

}  // namespace aiprof::model
