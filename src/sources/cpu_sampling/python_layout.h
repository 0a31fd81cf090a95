// Offsets into the CPython data structures that the sampler reads (thread state → frame
// chain → code objects → unicode names), taken at build time from the headers of the
// CPython found by CMake (python_layout.c, compiled with Py_BUILD_CORE for the internal
// structs). A running interpreter is only read when its Py_Version has the same major and
// minor version (python_stack.cc): the internal layouts change between minor versions.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct AiprofPythonLayout {
  uint32_t version_hex;  // PY_VERSION_HEX of the headers; 0: built without CPython headers
  // _PyRuntimeState.gilstate.autoTSSkey (a Py_tss_t: _is_initialized, _key)
  uint32_t runtime_tss_initialized;
  uint32_t runtime_tss_key;
  uint32_t tstate_cframe;         // PyThreadState.cframe
  uint32_t cframe_current_frame;  // _PyCFrame.current_frame
  uint32_t frame_code;            // _PyInterpreterFrame.f_code
  uint32_t frame_previous;        // _PyInterpreterFrame.previous
  uint32_t frame_prev_instr;      // _PyInterpreterFrame.prev_instr
  uint32_t frame_is_entry;        // _PyInterpreterFrame.is_entry (bool)
  uint32_t frame_owner;           // _PyInterpreterFrame.owner (char)
  uint32_t frame_header_bytes;    // bytes from the frame start that cover the fields above
  uint32_t object_type;           // PyObject.ob_type
  uint32_t code_filename;         // PyCodeObject.co_filename
  uint32_t code_qualname;         // PyCodeObject.co_qualname
  uint32_t code_firstlineno;      // PyCodeObject.co_firstlineno (int)
  uint32_t code_adaptive;         // PyCodeObject.co_code_adaptive (the instructions)
  uint32_t code_header_bytes;     // bytes from the code object start covering the fields above
  uint32_t unicode_length;        // PyASCIIObject.length
  uint32_t unicode_state;         // PyASCIIObject.state (a 32-bit bit field)
  uint32_t unicode_ascii_data;    // sizeof(PyASCIIObject): data of a compact ASCII string
  uint32_t unicode_compact_data;  // sizeof(PyCompactUnicodeObject): data of other compact ones
  // Masks and shifts of the state bits, found by setting each field in a zeroed state.
  uint32_t state_kind_mask, state_kind_shift, state_compact_mask, state_ascii_mask;
};

// Fills *layout; version_hex 0 when the plugin was built without CPython headers.
void AiprofPythonLayoutGet(struct AiprofPythonLayout* layout);

#ifdef __cplusplus
}
#endif
