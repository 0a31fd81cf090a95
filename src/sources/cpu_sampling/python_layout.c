// The CPython structure offsets of python_layout.h, from the real headers of the CPython
// found at build time. Compiled as C: the internal headers (Py_BUILD_CORE) are not C++.
#include "python_layout.h"

#include <string.h>

#ifdef AIPROF_HAVE_CPYTHON
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_frame.h>
#include <internal/pycore_runtime.h>
#include <stddef.h>

#if PY_VERSION_HEX < 0x030B0000 || PY_VERSION_HEX >= 0x030C0000
#error "python_layout.c reads the CPython 3.11 frame chain (cframe->current_frame)"
#endif

static uint32_t Shift(uint32_t mask) {
  uint32_t shift = 0;
  while (mask != 0 && (mask & 1u) == 0) {
    mask >>= 1;
    ++shift;
  }
  return shift;
}

static uint32_t StateBits(PyASCIIObject* object) {
  uint32_t bits = 0;
  memcpy(&bits, &object->state, sizeof(bits));
  memset(&object->state, 0, sizeof(object->state));
  return bits;
}

void AiprofPythonLayoutGet(struct AiprofPythonLayout* layout) {
  memset(layout, 0, sizeof(*layout));
  _Static_assert(sizeof(((PyASCIIObject*)0)->state) == 4, "unicode state is one 32-bit word");
  layout->version_hex = PY_VERSION_HEX;
  layout->runtime_tss_initialized =
      offsetof(_PyRuntimeState, gilstate.autoTSSkey) + offsetof(Py_tss_t, _is_initialized);
  layout->runtime_tss_key =
      offsetof(_PyRuntimeState, gilstate.autoTSSkey) + offsetof(Py_tss_t, _key);
  layout->tstate_cframe = offsetof(PyThreadState, cframe);
  layout->cframe_current_frame = offsetof(_PyCFrame, current_frame);
  layout->frame_code = offsetof(_PyInterpreterFrame, f_code);
  layout->frame_previous = offsetof(_PyInterpreterFrame, previous);
  layout->frame_prev_instr = offsetof(_PyInterpreterFrame, prev_instr);
  layout->frame_is_entry = offsetof(_PyInterpreterFrame, is_entry);
  layout->frame_owner = offsetof(_PyInterpreterFrame, owner);
  layout->frame_header_bytes = offsetof(_PyInterpreterFrame, localsplus);
  layout->object_type = offsetof(PyObject, ob_type);
  layout->code_filename = offsetof(PyCodeObject, co_filename);
  layout->code_qualname = offsetof(PyCodeObject, co_qualname);
  layout->code_firstlineno = offsetof(PyCodeObject, co_firstlineno);
  layout->code_adaptive = offsetof(PyCodeObject, co_code_adaptive);
  layout->code_header_bytes = offsetof(PyCodeObject, co_code_adaptive);
  layout->unicode_length = offsetof(PyASCIIObject, length);
  layout->unicode_state = offsetof(PyASCIIObject, state);
  layout->unicode_ascii_data = sizeof(PyASCIIObject);
  layout->unicode_compact_data = sizeof(PyCompactUnicodeObject);
  PyASCIIObject probe;
  memset(&probe, 0, sizeof(probe));
  probe.state.kind = 7;
  layout->state_kind_mask = StateBits(&probe);
  layout->state_kind_shift = Shift(layout->state_kind_mask);
  probe.state.compact = 1;
  layout->state_compact_mask = StateBits(&probe);
  probe.state.ascii = 1;
  layout->state_ascii_mask = StateBits(&probe);
}

#else

void AiprofPythonLayoutGet(struct AiprofPythonLayout* layout) {
  memset(layout, 0, sizeof(*layout));
}

#endif
