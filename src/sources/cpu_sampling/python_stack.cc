#include "sources/cpu_sampling/python_stack.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "format/records_cpu.h"
#include "sources/cpu_sampling/python_layout.h"

namespace aiprof::cpu_sampling {

namespace {

AiprofPythonLayout g_layout;
const uint8_t* g_runtime = nullptr;  // &_PyRuntime
uint64_t g_code_type = 0;            // &PyCode_Type
std::atomic<bool> g_enabled{false};
pid_t g_pid = 0;

bool Read(uint64_t address, void* out, size_t bytes) {
  iovec local{out, bytes};
  iovec remote{reinterpret_cast<void*>(address), bytes};
  return syscall(SYS_process_vm_readv, g_pid, &local, 1, &remote, 1, 0) == static_cast<long>(bytes);
}

template <typename T>
T At(const uint8_t* bytes, uint32_t offset) {
  T value;
  std::memcpy(&value, bytes + offset, sizeof(T));
  return value;
}

constexpr uint32_t kMaxHeaderBytes = 512;

void AppendUtf8(uint32_t c, std::string* out) {
  if (c < 0x80) {
    *out += static_cast<char>(c);
  } else if (c < 0x800) {
    *out += static_cast<char>(0xc0 | (c >> 6));
    *out += static_cast<char>(0x80 | (c & 0x3f));
  } else if (c < 0x10000) {
    *out += static_cast<char>(0xe0 | (c >> 12));
    *out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    *out += static_cast<char>(0x80 | (c & 0x3f));
  } else {
    *out += static_cast<char>(0xf0 | (c >> 18));
    *out += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
    *out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    *out += static_cast<char>(0x80 | (c & 0x3f));
  }
}

// A compact str object's text as UTF-8 (names and paths are always compact).
bool ReadUnicode(uint64_t object, std::string* out) {
  constexpr int64_t kMaxChars = 4096;
  uint8_t header[kMaxHeaderBytes];
  if (object == 0 || !Read(object, header, g_layout.unicode_compact_data)) return false;
  int64_t length = At<int64_t>(header, g_layout.unicode_length);
  uint32_t state = At<uint32_t>(header, g_layout.unicode_state);
  if (length < 0 || length > kMaxChars || (state & g_layout.state_compact_mask) == 0) return false;
  uint32_t kind = (state & g_layout.state_kind_mask) >> g_layout.state_kind_shift;
  bool ascii = (state & g_layout.state_ascii_mask) != 0;
  if (kind != 1 && kind != 2 && kind != 4) return false;
  uint8_t text[kMaxChars * 4];
  uint64_t data = object + (ascii ? g_layout.unicode_ascii_data : g_layout.unicode_compact_data);
  if (length > 0 && !Read(data, text, static_cast<size_t>(length) * kind)) return false;
  out->clear();
  for (int64_t i = 0; i < length; ++i) {
    uint32_t c = kind == 1   ? text[i]
                 : kind == 2 ? At<uint16_t>(text, static_cast<uint32_t>(i * 2))
                             : At<uint32_t>(text, static_cast<uint32_t>(i * 4));
    AppendUtf8(c, out);
  }
  return true;
}

}  // namespace

bool EnablePythonStacks(std::string* status) {
  status->clear();
  auto* runtime = static_cast<const uint8_t*>(dlsym(RTLD_DEFAULT, "_PyRuntime"));
  if (runtime == nullptr) return false;  // not a CPython process
  const auto* version = static_cast<const unsigned long*>(dlsym(RTLD_DEFAULT, "Py_Version"));
  AiprofPythonLayoutGet(&g_layout);
  if (g_layout.version_hex == 0) {
    *status = "no Python frames: aiprof was built without CPython headers (python3-dev)";
    return false;
  }
  auto major_minor = [](unsigned long hex) {
    return std::to_string((hex >> 24) & 0xff) + "." + std::to_string((hex >> 16) & 0xff);
  };
  std::string built = major_minor(g_layout.version_hex);
  if (version == nullptr) {
    *status = "no Python frames: this CPython is older than 3.11 (no Py_Version); aiprof reads " +
              built + "'s frames";
    return false;
  }
  if ((*version >> 16) != (g_layout.version_hex >> 16)) {
    *status = "no Python frames: CPython " + major_minor(*version) +
              " runs and aiprof was built with the frame layout of " + built +
              " (rebuild aiprof with that Python's headers)";
    return false;
  }
  g_code_type = reinterpret_cast<uint64_t>(dlsym(RTLD_DEFAULT, "PyCode_Type"));
  if (g_code_type == 0 || g_layout.frame_header_bytes > kMaxHeaderBytes ||
      g_layout.code_header_bytes > kMaxHeaderBytes ||
      g_layout.unicode_compact_data > kMaxHeaderBytes) {
    *status = "no Python frames: PyCode_Type not found or an unexpected layout";
    return false;
  }
  g_runtime = runtime;
  g_pid = getpid();
  g_enabled.store(true, std::memory_order_release);
  *status = "Python frames of CPython " + major_minor(*version);
  return true;
}

void DisablePythonStacks() {
  g_enabled.store(false, std::memory_order_release);
}

uint32_t ReadPythonStack(uint64_t* code, uint64_t* info, uint32_t max, bool* truncated) {
  *truncated = false;
  if (!g_enabled.load(std::memory_order_acquire)) return 0;
  // The key is set once when the interpreter starts (0 before): plain reads of our own
  // process's data, as Python itself does.
  int initialized;
  pthread_key_t key;
  std::memcpy(&initialized, g_runtime + g_layout.runtime_tss_initialized, sizeof(initialized));
  if (initialized == 0) return 0;
  std::memcpy(&key, g_runtime + g_layout.runtime_tss_key, sizeof(key));
  // glibc's pthread_getspecific reads the calling thread's key array: no lock, no
  // allocation, so safe in a signal handler in practice (not listed as such by POSIX).
  auto tstate = reinterpret_cast<uint64_t>(pthread_getspecific(key));
  uint64_t cframe = 0, frame = 0;
  if (tstate == 0 || !Read(tstate + g_layout.tstate_cframe, &cframe, sizeof(cframe)) ||
      cframe == 0 || !Read(cframe + g_layout.cframe_current_frame, &frame, sizeof(frame))) {
    return 0;
  }
  uint8_t header[kMaxHeaderBytes];
  uint32_t count = 0;
  while (frame != 0 && count < max) {
    if (!Read(frame, header, g_layout.frame_header_bytes)) break;
    uint64_t object = At<uint64_t>(header, g_layout.frame_code);
    uint64_t instruction = At<uint64_t>(header, g_layout.frame_prev_instr);
    uint64_t first = object + g_layout.code_adaptive;
    uint64_t index = instruction >= first ? (instruction - first) / 2 : UINT32_MAX;
    code[count] = object;
    info[count] = (index < UINT32_MAX ? index : UINT32_MAX) |
                  (header[g_layout.frame_is_entry] != 0 ? format::kCpuPythonEntry : 0);
    ++count;
    uint64_t previous = At<uint64_t>(header, g_layout.frame_previous);
    if (previous == frame) break;
    frame = previous;
  }
  *truncated = frame != 0 && count == max;
  return count;
}

bool PythonCodeNames::Update(uint64_t code, Named* named) {
  auto found = known_.find(code);
  if (found != known_.end() && found->second.checked_in_flush == flush_) return false;
  uint8_t header[kMaxHeaderBytes];
  Identity identity;
  if (g_enabled.load(std::memory_order_acquire) && code != 0 &&
      Read(code, header, g_layout.code_header_bytes)) {
    identity.type = At<uint64_t>(header, g_layout.object_type);
    identity.qualname = At<uint64_t>(header, g_layout.code_qualname);
    identity.filename = At<uint64_t>(header, g_layout.code_filename);
    identity.first_line = At<int32_t>(header, g_layout.code_firstlineno);
  }
  if (found == known_.end()) found = known_.emplace(code, Known{}).first;
  bool unchanged = found->second.checked_in_flush != 0 && found->second.identity == identity;
  found->second = {identity, flush_};
  if (unchanged) return false;
  std::string qualname;
  if (identity.type != g_code_type || !ReadUnicode(identity.qualname, &qualname) ||
      !ReadUnicode(identity.filename, &named->file)) {
    named->name = "[unknown Python code]";
    named->file.clear();
    return true;
  }
  size_t slash = named->file.rfind('/');
  std::string base = slash == std::string::npos ? named->file : named->file.substr(slash + 1);
  named->name = qualname + " (" + base + ":" + std::to_string(identity.first_line) + ")";
  return true;
}

}  // namespace aiprof::cpu_sampling
