// CPU sampling records (src/format/records_cpu.h) → CpuProfileTables: samples with
// deduplicated stacks, mappings, sampling runs, and thread states built from the switch
// records. The kernel stamps samples and switches in monotonic raw ns, which is the time
// base the parser converts ticks to, so they are stored without conversion.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/records_cpu.h"
#include "model/clock.h"
#include "model/importer.h"
#include "model/process_rows.h"

namespace aiprof::model {
namespace {

// A kernel time stamp, kept in the range of the model's times (a corrupt record's may be
// anything; ClockFit::kMaxTimeNs).
int64_t KernelNs(uint64_t ts) {
  return ts > static_cast<uint64_t>(ClockFit::kMaxTimeNs) ? ClockFit::kMaxTimeNs
                                                          : static_cast<int64_t>(ts);
}

using format::CpuRecordKind;

class CpuSamplingImporter : public RecordImporter {
 public:
  bool Handles(uint8_t kind) const override {
    return (kind >= static_cast<uint8_t>(CpuRecordKind::kCpuSample) &&
            kind <= static_cast<uint8_t>(CpuRecordKind::kCpuSamplingInfo)) ||
           (kind >= static_cast<uint8_t>(CpuRecordKind::kCpuStackCopy) &&
            kind <= static_cast<uint8_t>(CpuRecordKind::kCpuPythonCode));
  }

  void Import(const format::RecordView& record, ImportContext& context) override {
    const format::RecordHeader& h = *record.header;
    CpuProfileTables& cpu = context.model().cpu;
    switch (static_cast<CpuRecordKind>(h.kind)) {
      case CpuRecordKind::kCpuSample: {
        const auto* sample = record.ExtAs<format::CpuSampleHeader>(0);
        if (sample == nullptr) break;
        uint32_t frames = std::min<uint32_t>(sample->frames, 2 * (h.ext_words - 1u));
        uint32_t process = Process(context, sample->pid);
        uint32_t thread = context.Thread(process, sample->tid);
        const auto* ips = reinterpret_cast<const uint64_t*>(record.ExtAs<format::ExtWord>(1));
        bool kernel_leaf = (h.aux & format::kCpuSampleKernelLeaf) != 0;
        // The Python frames record precedes its sample; one of another sample (whose
        // sample was dropped) is not taken.
        if (python_.ts != h.ts || python_.tid != sample->tid) python_.Clear();
        uint32_t stack;
        if (h.aux & format::kCpuSampleStackCopy) {
          stack = StackAwaitingCopy(cpu, process, frames == 0 ? 0 : ips[0], kernel_leaf);
          copy_ = {h.ts, sample->tid, stack, 0};
          copy_bytes_.clear();
        } else {
          stack = Stack(cpu, process, frames == 0 ? nullptr : ips, frames, kernel_leaf);
        }
        python_.Clear();
        if (h.aux & format::kCpuSampleOffCpu) {
          blocking_samples_[thread].push_back(
              {KernelNs(h.ts), stack, (h.aux & format::kCpuSampleStackCopy) != 0});
        }
        cpu.samples.ts.push_back(KernelNs(h.ts));
        cpu.samples.thread.push_back(thread);
        cpu.samples.stack.push_back(stack);
        cpu.samples.flags.push_back(h.aux);
        cpu.samples.cpu.push_back(sample->cpu);
        break;
      }
      case CpuRecordKind::kCpuStackCopy:
        ImportStackCopyPiece(record, cpu);
        break;
      case CpuRecordKind::kCpuPythonCode: {
        const auto* code = record.ExtAs<format::ExtWord>(0);
        const auto* file = record.ExtAs<format::ExtWord>(1);
        if (code == nullptr || file == nullptr) break;
        // A later record for the same address replaces the name: the address was reused.
        python_codes_[{static_cast<uint32_t>(code->hi), code->lo}] = {
            context.FileString(h.arg), context.FileString(static_cast<uint32_t>(file->lo))};
        break;
      }
      case CpuRecordKind::kCpuPythonFrames: {
        python_.Clear();
        python_.ts = h.ts;
        python_.tid = h.arg;
        python_.truncated = (h.aux & format::kCpuPythonTruncated) != 0;
        uint32_t pid = context.model().processes.pid[context.process()];
        for (uint32_t i = 0; i < h.ext_words; ++i) {
          const format::ExtWord* frame = record.ExtAs<format::ExtWord>(i);
          if (frame == nullptr) break;
          auto found = python_codes_.find({pid, frame->lo});
          if (found == python_codes_.end()) {
            python_.name.push_back(context.model().strings.Intern("[unknown Python code]"));
            python_.file.push_back(kNoString);
          } else {
            python_.name.push_back(found->second.name);
            python_.file.push_back(found->second.file);
          }
          python_.entry.push_back((frame->hi & format::kCpuPythonEntry) != 0 ? 1 : 0);
        }
        break;
      }
      case CpuRecordKind::kCpuSwitch: {
        const auto* sample = record.ExtAs<format::CpuSampleHeader>(0);
        if (sample == nullptr) break;
        uint32_t thread = context.Thread(Process(context, sample->pid), sample->tid);
        switches_.push_back({KernelNs(h.ts), thread, h.aux});
        break;
      }
      case CpuRecordKind::kCpuMapping: {
        const auto* range = record.ExtAs<format::CpuMappingRange>(0);
        const auto* file = record.ExtAs<format::CpuMappingFile>(1);
        if (range == nullptr || file == nullptr) break;
        const auto* id = reinterpret_cast<const uint8_t*>(record.ExtAs<format::ExtWord>(2));
        std::string hex;
        static const char kHex[] = "0123456789abcdef";
        for (uint32_t i = 0; id != nullptr && i < std::min<uint32_t>(file->build_id_size, 32);
             ++i) {
          hex += kHex[id[i] >> 4];
          hex += kHex[id[i] & 15];
        }
        CpuMappingTable& m = cpu.mappings;
        m.process.push_back(Process(context, file->pid));
        m.start.push_back(range->start);
        m.end.push_back(range->end);
        m.file_offset.push_back(file->file_offset);
        m.path.push_back(context.FileString(h.arg));
        m.build_id.push_back(std::move(hex));
        break;
      }
      case CpuRecordKind::kCpuSamplingInfo: {
        const auto* rate = record.ExtAs<format::ExtWord>(0);
        cpu.runs.process.push_back(context.process());
        cpu.runs.mode.push_back(h.aux);
        cpu.runs.reason.push_back(context.FileString(h.arg));
        cpu.runs.freq_hz.push_back(rate == nullptr ? 0 : static_cast<uint32_t>(rate->hi));
        break;
      }
      default:
        break;
    }
  }

  // Switch records arrive per CPU ring, so a thread that migrated has its records out of
  // order across rings: sort, then turn each thread's in/out sequence into intervals.
  void Finish(ImportContext& context, uint64_t) override {
    std::stable_sort(switches_.begin(), switches_.end(), [](const Switch& a, const Switch& b) {
      return a.thread != b.thread ? a.thread < b.thread : a.ts < b.ts;
    });
    for (auto& [thread, list] : blocking_samples_) {
      std::stable_sort(list.begin(), list.end(),
                       [](const Blocking& a, const Blocking& b) { return a.ts < b.ts; });
    }
    ThreadStateTable& states = context.model().cpu.thread_states;
    auto add = [&](uint32_t thread, int64_t ts, int64_t end, ThreadState state, uint32_t stack) {
      if (end <= ts) return;
      states.thread.push_back(thread);
      states.ts.push_back(ts);
      states.end.push_back(end);
      states.state.push_back(state);
      states.stack.push_back(stack);
    };
    for (size_t i = 0; i + 1 < switches_.size(); ++i) {
      const Switch& a = switches_[i];
      const Switch& b = switches_[i + 1];
      if (a.thread != b.thread) continue;
      bool a_out = a.flags & format::kCpuSwitchOut;
      bool b_out = b.flags & format::kCpuSwitchOut;
      if (!a_out && b_out) {
        add(a.thread, a.ts, b.ts, ThreadState::kRunning, UINT32_MAX);
      } else if (a_out && !b_out) {
        bool preempted = a.flags & format::kCpuSwitchPreempt;
        // The thread's switch-in before this switch-out bounds this switch's samples.
        int64_t since =
            i > 0 && switches_[i - 1].thread == a.thread ? switches_[i - 1].ts : INT64_MIN;
        add(a.thread, a.ts, b.ts, preempted ? ThreadState::kPreempted : ThreadState::kBlocked,
            preempted ? UINT32_MAX
                      : BlockingStack(context.model().cpu, a.thread, since, a.ts, b.ts));
      }
    }
    switches_.clear();
  }

 private:
  struct Switch {
    int64_t ts;
    uint32_t thread;
    uint16_t flags;
  };
  struct Blocking {
    int64_t ts;
    uint32_t stack;
    bool copied;  // a stack-copy sample (its copy may have been lost: the leaf alone)
  };

  // The switch-out sample of the blocking-stack event is taken in the same scheduler call
  // as the switch record: the thread's latest one at or before the wake-up. With stack
  // copies (call_graph dwarf) the switch-out has two, the frame-pointer chain and the copy
  // (lost when its ring was full, or incomplete): the copy, when it arrived whole, is the
  // deeper stack; else the chain; a copy sample without its copy (the leaf alone) last.
  uint32_t BlockingStack(const CpuProfileTables& cpu, uint32_t thread, int64_t since,
                         int64_t out_ts, int64_t in_ts) {
    auto found = blocking_samples_.find(thread);
    if (found == blocking_samples_.end()) return UINT32_MAX;
    const std::vector<Blocking>& list = found->second;
    auto after = std::upper_bound(list.begin(), list.end(), in_ts,
                                  [](int64_t ts, const Blocking& b) { return ts < b.ts; });
    constexpr int64_t kSameSwitchNs = 100000;
    int64_t earliest = std::max(since, out_ts - kSameSwitchNs);
    uint32_t chain = UINT32_MAX, leaf = UINT32_MAX;
    for (auto it = after; it != list.begin() && (it - 1)->ts >= earliest; --it) {
      const Blocking& candidate = *(it - 1);
      if (cpu.stacks.copy[candidate.stack] != UINT32_MAX) return candidate.stack;
      uint32_t& slot = candidate.copied ? leaf : chain;
      if (slot == UINT32_MAX) slot = candidate.stack;
    }
    return chain != UINT32_MAX ? chain : leaf;
  }

  uint32_t Process(ImportContext& context, uint32_t pid) {
    Model& model = context.model();
    if (pid == 0 || pid == model.processes.pid[context.process()]) return context.process();
    auto [it, inserted] = other_processes_.emplace(pid, 0);
    if (!inserted) return it->second;
    // A forked child whose events were inherited (kernels without inherit_thread).
    it->second = AppendHostProcess(model, pid, model.processes.host[context.process()]);
    return it->second;
  }

  // A sample with a stack copy: a stack row of its own whose copy comes with the pieces
  // that follow.
  uint32_t StackAwaitingCopy(CpuProfileTables& cpu, uint32_t process, uint64_t ip,
                             bool kernel_leaf) {
    cpu.stacks.process.push_back(process);
    cpu.stacks.kernel_leaf.push_back(kernel_leaf ? 1 : 0);
    if (ip != 0) cpu.stacks.frames.push_back(ip);
    cpu.stacks.begin.push_back(static_cast<uint32_t>(cpu.stacks.frames.size()));
    cpu.stacks.copy.push_back(UINT32_MAX);
    AddPythonFrames(cpu.stacks);
    return static_cast<uint32_t>(cpu.stacks.size() - 1);
  }

  // Pieces arrive right after their sample, in order (one writer-thread buffer). The copy
  // is kept once complete; a piece that does not continue it (a dropped one) abandons it,
  // and the sample keeps its leaf alone.
  void ImportStackCopyPiece(const format::RecordView& record, CpuProfileTables& cpu) {
    const format::RecordHeader& h = *record.header;
    const auto* piece = record.ExtAs<format::CpuStackCopyPiece>(0);
    if (piece == nullptr || copy_.stack == UINT32_MAX || h.ts != copy_.ts || h.arg != copy_.tid ||
        piece->offset != copy_.received || (h.aux == 0) != (copy_.received == 0)) {
      copy_.stack = UINT32_MAX;
      return;
    }
    const auto* payload = reinterpret_cast<const uint8_t*>(record.ExtAs<format::ExtWord>(1));
    uint32_t regs_bytes = h.aux == 0 ? 8 * format::kCpuUserRegs : 0;
    if (payload == nullptr || 16u * (h.ext_words - 1u) < regs_bytes + piece->bytes) {
      copy_.stack = UINT32_MAX;
      return;
    }
    if (h.aux == 0) std::memcpy(copy_regs_, payload, regs_bytes);
    copy_bytes_.insert(copy_bytes_.end(), payload + regs_bytes,
                       payload + regs_bytes + piece->bytes);
    copy_.received += piece->bytes;
    if (copy_.received < piece->total_bytes) return;
    CpuStackCopyTable& copies = cpu.stack_copies;
    cpu.stacks.copy[copy_.stack] = static_cast<uint32_t>(copies.size());
    copies.regs.insert(copies.regs.end(), copy_regs_, copy_regs_ + format::kCpuUserRegs);
    copies.bytes.insert(copies.bytes.end(), copy_bytes_.begin(), copy_bytes_.end());
    copies.begin.push_back(copies.bytes.size());
    copy_.stack = UINT32_MAX;
    copy_bytes_.clear();
  }

  uint32_t Stack(CpuProfileTables& cpu, uint32_t process, const uint64_t* ips, uint32_t frames,
                 bool kernel_leaf) {
    key_.assign(reinterpret_cast<const char*>(&process), sizeof(process));
    key_ += kernel_leaf ? 'k' : 'u';
    if (frames > 0) key_.append(reinterpret_cast<const char*>(ips), frames * sizeof(uint64_t));
    key_ += python_.truncated ? 't' : 'p';
    for (size_t i = 0; i < python_.name.size(); ++i) {
      uint32_t word[3] = {python_.name[i], python_.file[i], python_.entry[i]};
      key_.append(reinterpret_cast<const char*>(word), sizeof(word));
    }
    auto [it, inserted] = stacks_.emplace(key_, static_cast<uint32_t>(cpu.stacks.size()));
    if (inserted) {
      cpu.stacks.process.push_back(process);
      cpu.stacks.kernel_leaf.push_back(kernel_leaf ? 1 : 0);
      if (frames > 0) cpu.stacks.frames.insert(cpu.stacks.frames.end(), ips, ips + frames);
      cpu.stacks.begin.push_back(static_cast<uint32_t>(cpu.stacks.frames.size()));
      cpu.stacks.copy.push_back(UINT32_MAX);
      AddPythonFrames(cpu.stacks);
    }
    return it->second;
  }

  void AddPythonFrames(CpuStackTable& stacks) {
    stacks.python_name.insert(stacks.python_name.end(), python_.name.begin(), python_.name.end());
    stacks.python_file.insert(stacks.python_file.end(), python_.file.begin(), python_.file.end());
    stacks.python_entry.insert(stacks.python_entry.end(), python_.entry.begin(),
                               python_.entry.end());
    stacks.python_begin.push_back(static_cast<uint32_t>(stacks.python_name.size()));
    stacks.python_truncated.push_back(python_.truncated ? 1 : 0);
  }

  // The Python frames of the sample that comes next (kCpuPythonFrames), names resolved.
  struct PendingPython {
    uint64_t ts = 0;
    uint32_t tid = 0;
    bool truncated = false;
    std::vector<StringId> name, file;
    std::vector<uint8_t> entry;
    void Clear() {
      ts = 0;
      tid = 0;
      truncated = false;
      name.clear();
      file.clear();
      entry.clear();
    }
  };
  struct PythonCodeName {
    StringId name, file;
  };
  PendingPython python_;
  std::map<std::pair<uint32_t, uint64_t>, PythonCodeName> python_codes_;  // (pid, address)

  struct PendingCopy {
    uint64_t ts = 0;
    uint32_t tid = 0;
    uint32_t stack = UINT32_MAX;  // the sample's stack row; UINT32_MAX: none pending
    uint32_t received = 0;
  };
  PendingCopy copy_;
  uint64_t copy_regs_[format::kCpuUserRegs] = {};
  std::vector<uint8_t> copy_bytes_;
  std::vector<Switch> switches_;
  std::unordered_map<uint32_t, std::vector<Blocking>> blocking_samples_;
  std::unordered_map<std::string, uint32_t> stacks_;
  std::unordered_map<uint32_t, uint32_t> other_processes_;
  std::string key_;
};

}  // namespace
}  // namespace aiprof::model

AIPROF_DEFINE_IMPORTER(cpu_sampling) {
  return std::make_unique<aiprof::model::CpuSamplingImporter>();
}
