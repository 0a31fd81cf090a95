#include "analysis/cpu_profile/dwarf_unwinder.h"

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <libelf.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include "format/records_cpu.h"

namespace aiprof::analysis {

namespace {

// Registers libdw's x86-64 backend takes at the start of an unwind (DWARF 0..16).
constexpr int kFrameRegisters = 17;
// A deeper stack is cut (recursion, or a copy that keeps looking valid).
constexpr size_t kMaxFrames = 256;

std::string HexBuildId(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string hex;
  if (Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr)) {
    const void* bits = nullptr;
    ssize_t size = dwelf_elf_gnu_build_id(elf, &bits);
    static const char kHex[] = "0123456789abcdef";
    for (ssize_t i = 0; i < size; ++i) {
      uint8_t byte = static_cast<const uint8_t*>(bits)[i];
      hex += kHex[byte >> 4];
      hex += kHex[byte & 15];
    }
    elf_end(elf);
  }
  close(fd);
  return hex;
}

}  // namespace

// What the libdwfl callbacks read: the sample being unwound.
struct DwarfUnwinder::Process {
  Dwfl* dwfl = nullptr;
  pid_t pid = 0;
  bool usable = false;
  const uint64_t* regs = nullptr;
  const uint8_t* stack = nullptr;
  uint64_t stack_size = 0;
  std::vector<uint64_t>* frames = nullptr;
  bool first_frame = true;

  ~Process() {
    if (dwfl != nullptr) dwfl_end(dwfl);
  }

  static pid_t NextThread(Dwfl* dwfl, void* arg, void** thread_arg) {
    if (*thread_arg != nullptr) return 0;  // one thread: the sample's
    *thread_arg = arg;
    return dwfl_pid(dwfl);
  }

  // Only the copied stack is readable; a read elsewhere ends the unwind there.
  static bool ReadMemory(Dwfl*, Dwarf_Addr address, Dwarf_Word* result, void* arg) {
    auto* self = static_cast<Process*>(arg);
    uint64_t sp = self->regs[format::kCpuDwarfSp];
    if (address < sp || address - sp + sizeof(*result) > self->stack_size) return false;
    std::memcpy(result, self->stack + (address - sp), sizeof(*result));
    return true;
  }

  static bool SetInitialRegisters(Dwfl_Thread* thread, void* arg) {
    auto* self = static_cast<Process*>(arg);
    Dwarf_Word regs[kFrameRegisters];
    for (int i = 0; i < kFrameRegisters; ++i) regs[i] = self->regs[i];
    if (!dwfl_thread_state_registers(thread, 0, kFrameRegisters, regs)) return false;
    dwfl_thread_state_register_pc(thread, self->regs[format::kCpuDwarfIp]);
    return true;
  }

  static int OnFrame(Dwfl_Frame* state, void* arg) {
    auto* self = static_cast<Process*>(arg);
    Dwarf_Addr pc = 0;
    bool activation = false;
    if (!dwfl_frame_pc(state, &pc, &activation) || pc == 0) return DWARF_CB_ABORT;
    // The first frame is the initial state: the sampled IP, which frames holds already.
    if (self->first_frame) {
      self->first_frame = false;
      return DWARF_CB_OK;
    }
    self->frames->push_back(pc);  // a return address (the symboliser looks up pc - 1)
    return self->frames->size() >= kMaxFrames ? DWARF_CB_ABORT : DWARF_CB_OK;
  }
};

namespace {

char* g_debuginfo_path = nullptr;

const Dwfl_Callbacks kOfflineCallbacks = {
    nullptr,  // find_elf: every module is reported with its file name
    dwfl_standard_find_debuginfo,
    dwfl_offline_section_address,
    &g_debuginfo_path,
};

const Dwfl_Thread_Callbacks kThreadCallbacks = {
    DwarfUnwinder::Process::NextThread,
    nullptr,  // get_thread: next_thread yields the one thread
    DwarfUnwinder::Process::ReadMemory,
    DwarfUnwinder::Process::SetInitialRegisters,
    nullptr,  // detach
    nullptr,  // thread_detach
};

}  // namespace

DwarfUnwinder::DwarfUnwinder(const model::Model& m) : m_(m) {
  elf_version(EV_CURRENT);
}

DwarfUnwinder::~DwarfUnwinder() = default;

DwarfUnwinder::Process* DwarfUnwinder::ForProcess(uint32_t process) {
  auto [it, inserted] = processes_.emplace(process, nullptr);
  if (!inserted) return it->second.get();
  it->second = std::make_unique<Process>();
  Process& p = *it->second;
  p.pid = static_cast<pid_t>(m_.processes.pid[process]);
  p.dwfl = dwfl_begin(&kOfflineCallbacks);
  if (p.dwfl == nullptr) return &p;
  // Each file once, at the load address of its file offset 0 (perf's convention: the
  // mapping's start minus its offset), as it was mapped when sampled.
  const model::CpuMappingTable& maps = m_.cpu.mappings;
  std::map<std::string, uint64_t> base_of;
  std::map<std::string, std::string> build_id_of;
  for (uint32_t row = 0; row < maps.size(); ++row) {
    if (maps.process[row] != process) continue;
    std::string path(m_.Str(maps.path[row]));
    if (path.empty() || path[0] != '/') continue;  // [vdso], anonymous code
    base_of[path] = maps.start[row] - maps.file_offset[row];
    build_id_of[path] = maps.build_id[row];
  }
  dwfl_report_begin(p.dwfl);
  for (const auto& [path, base] : base_of) {
    const std::string& recorded = build_id_of[path];
    if (!recorded.empty() && HexBuildId(path) != recorded) {
      warnings_.push_back(path +
                          " changed since collection: its call-frame information is "
                          "not used, stacks through it end there");
      continue;
    }
    dwfl_report_elf(p.dwfl, path.c_str(), path.c_str(), -1, base, false);
  }
  dwfl_report_end(p.dwfl, nullptr, nullptr);
  p.usable = dwfl_attach_state(p.dwfl, nullptr, p.pid, &kThreadCallbacks, &p);
  return &p;
}

void DwarfUnwinder::Unwind(uint32_t process, uint32_t copy, std::vector<uint64_t>* frames) {
  const model::CpuStackCopyTable& copies = m_.cpu.stack_copies;
  const uint64_t* regs = copies.regs.data() + static_cast<size_t>(copy) * format::kCpuUserRegs;
  frames->clear();
  frames->push_back(regs[format::kCpuDwarfIp]);
  Process* p = ForProcess(process);
  if (!p->usable) return;
  p->regs = regs;
  p->stack = copies.bytes.data() + copies.begin[copy];
  p->stack_size = copies.begin[copy + 1] - copies.begin[copy];
  p->frames = frames;
  p->first_frame = true;
  // Ends with -1 where the unwind cannot go on (the copy's end, a frame without CFI):
  // the frames found until then are the stack.
  dwfl_getthread_frames(p->dwfl, p->pid, Process::OnFrame, p);
}

}  // namespace aiprof::analysis
