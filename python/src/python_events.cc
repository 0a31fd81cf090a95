#include "python_events.h"

#include <Python.h>
#include <frameobject.h>

#include <string>
#include <unordered_map>

#include "format/records_torch.h"
#include "runtime_api.h"

namespace aiprof::python {
namespace {

using format::RecordHeader;
using format::RecordKind;
using format::TorchKind;

void EmitHeader(uint8_t kind, uint32_t arg) {
  if (!Collecting()) return;
  RecordHeader header{Runtime().now(), kind, 0, 0, arg};
  Runtime().emit(&header, 1);
}

}  // namespace

namespace {

// Domain handles live as long as the runtime; created once per name, under the GIL.
mstxDomainHandle_t Domain(const std::string& name) {
  static auto* domains = new std::unordered_map<std::string, mstxDomainHandle_t>();
  auto it = domains->find(name);
  if (it != domains->end()) return it->second;
  mstxDomainHandle_t handle = Runtime().domain_create(name.c_str());
  domains->emplace(name, handle);
  return handle;
}

}  // namespace

void EmitMark(const std::string& message, const std::string& domain) {
  if (!RuntimeLoaded()) return;
  if (domain.empty()) {
    Runtime().mark(message.c_str(), nullptr);
  } else {
    Runtime().domain_mark(Domain(domain), message.c_str(), nullptr);
  }
}

uint64_t EmitRangeStart(const std::string& message, const std::string& domain, uintptr_t stream) {
  if (!RuntimeLoaded()) return 0;
  void* device_stream = reinterpret_cast<void*>(stream);
  return domain.empty()
             ? Runtime().range_start(message.c_str(), device_stream)
             : Runtime().domain_range_start(Domain(domain), message.c_str(), device_stream);
}

void EmitRangeEnd(uint64_t range_id, const std::string& domain) {
  if (!RuntimeLoaded() || range_id == 0) return;
  if (domain.empty()) {
    Runtime().range_end(range_id);
  } else {
    Runtime().domain_range_end(Domain(domain), range_id);
  }
}

void EmitModuleBegin(const std::string& name) {
  EmitHeader(format::ToKind(TorchKind::kModuleBegin), Intern(name));
}

void EmitModuleEnd() {
  EmitHeader(format::ToKind(TorchKind::kModuleEnd), 0);
}

void EmitProcessGroupBegin(const std::string& group_name) {
  EmitHeader(format::ToKind(TorchKind::kProcessGroupBegin), Intern(group_name));
}

void EmitProcessGroupEnd() {
  EmitHeader(format::ToKind(TorchKind::kProcessGroupEnd), 0);
}

void EmitGc(uint64_t start_ts, uint64_t end_ts, int generation, uint32_t collected,
            uint32_t uncollectable) {
  if (!Collecting()) return;
  struct {
    RecordHeader header;
    format::TorchGc gc;
  } record{};
  record.header = {start_ts, format::ToKind(TorchKind::kGc), 1, 0,
                   static_cast<uint32_t>(generation)};
  record.gc = {end_ts, collected, uncollectable};
  Runtime().emit(&record, 2);
}

namespace {

// Names are built once per code object / builtin, under the GIL. Code objects live as
// long as their functions, which outlive one profiling session in practice (torch's
// tracer makes the same trade).
std::unordered_map<const void*, uint32_t>& NameIds() {
  static auto* ids = new std::unordered_map<const void*, uint32_t>();
  return *ids;
}

uint32_t CodeNameId(PyFrameObject* frame) {
  PyCodeObject* code = PyFrame_GetCode(frame);
  auto& ids = NameIds();
  auto it = ids.find(code);
  uint32_t id;
  if (it != ids.end()) {
    id = it->second;
  } else {
    const char* file = PyUnicode_AsUTF8(code->co_filename);
    const char* name = PyUnicode_AsUTF8(code->co_name);
    std::string text = std::string(file ? file : "?") + "(" + std::to_string(code->co_firstlineno) +
                       "): " + (name ? name : "?");
    id = Intern(text);
    ids.emplace(code, id);
  }
  Py_DECREF(code);
  return id;
}

uint32_t BuiltinNameId(PyObject* function) {
  if (!PyCFunction_Check(function)) return Intern("<built-in function>");
  PyMethodDef* method = reinterpret_cast<PyCFunctionObject*>(function)->m_ml;
  auto& ids = NameIds();
  auto it = ids.find(method);
  if (it != ids.end()) return it->second;
  PyObject* self = PyCFunction_GET_SELF(function);
  std::string text = self != nullptr && !PyModule_Check(self)
                         ? std::string("<built-in method ") + method->ml_name + " of " +
                               Py_TYPE(self)->tp_name + " object>"
                         : std::string("<built-in function ") + method->ml_name + ">";
  const uint32_t id = Intern(text);
  ids.emplace(method, id);
  return id;
}

int ProfileCallback(PyObject*, PyFrameObject* frame, int what, PyObject* arg) {
  if (!Collecting()) return 0;
  switch (what) {
    case PyTrace_CALL:
      EmitHeader(format::ToKind(TorchKind::kPyCall), CodeNameId(frame));
      break;
    case PyTrace_C_CALL:
      EmitHeader(format::ToKind(TorchKind::kPyCall), BuiltinNameId(arg));
      break;
    case PyTrace_RETURN:
    case PyTrace_C_RETURN:
    case PyTrace_C_EXCEPTION:
      EmitHeader(format::ToKind(TorchKind::kPyReturn), 0);
      break;
    default:
      break;
  }
  return 0;
}

}  // namespace

// Every thread of the interpreter, under the GIL (so none of them is running Python).
void SetPythonTracer(bool enabled) {
  Py_tracefunc function = enabled ? ProfileCallback : nullptr;
#if PY_VERSION_HEX >= 0x030C0000
  PyEval_SetProfileAllThreads(function, nullptr);
#else
  PyInterpreterState* interpreter = PyThreadState_GetInterpreter(PyThreadState_Get());
  for (PyThreadState* thread = PyInterpreterState_ThreadHead(interpreter); thread != nullptr;
       thread = PyThreadState_Next(thread)) {
    _PyEval_SetProfile(thread, function, nullptr);
  }
#endif
}

void SetPythonTracerOnThisThread(bool enabled) {
  PyEval_SetProfile(enabled ? ProfileCallback : nullptr, nullptr);
}

}  // namespace aiprof::python
