// Records the Python side adds to a collection window: markers (mstx), nn.Module
// begin/end, garbage collections and the Python call stack (with_stack).
#pragma once

#include <cstdint>
#include <string>

namespace aiprof::python {

// mstx markers through the runtime's mstx API; an empty domain is the default domain.
void EmitMark(const std::string& message, const std::string& domain);
// `stream`: a CUstream handle (0: none) whose device time the range also marks.
uint64_t EmitRangeStart(const std::string& message, const std::string& domain,
                        uintptr_t stream = 0);  // 0: not recorded
void EmitRangeEnd(uint64_t range_id, const std::string& domain);
void EmitModuleBegin(const std::string& name);
void EmitModuleEnd();
// Around a torch.distributed call on a non-default process group (`group_name`: torch's
// pg name), so the analysis knows the group of the collective inside.
void EmitProcessGroupBegin(const std::string& group_name);
void EmitProcessGroupEnd();
void EmitGc(uint64_t start_ts, uint64_t end_ts, int generation, uint32_t collected,
            uint32_t uncollectable);

// Installs (or removes) a C-level profile function on the calling thread that records
// Python and builtin calls as kPyCall / kPyReturn. Needs the GIL.
void SetPythonTracer(bool enabled);  // all threads of the interpreter
// The calling thread only: threads started while a window is open install it from
// threading.setprofile's hook at their first Python call.
void SetPythonTracerOnThisThread(bool enabled);

}  // namespace aiprof::python
