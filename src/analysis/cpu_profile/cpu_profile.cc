#include "analysis/cpu_profile/cpu_profile.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <unordered_map>

#include "analysis/cpu_profile/dwarf_unwinder.h"
#include "analysis/cpu_profile/elf_symbols.h"
#include "format/records_cpu.h"

namespace aiprof::analysis {

namespace {

std::string BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

class Symbolizer {
 public:
  Symbolizer(const model::Model& m, CpuProfile* profile) : m_(m), profile_(*profile) {
    const model::CpuMappingTable& maps = m.cpu.mappings;
    for (uint32_t row = 0; row < maps.size(); ++row) {
      // A later mapping at the same start replaces an earlier one (dlclose + dlopen).
      by_process_[maps.process[row]][maps.start[row]] = row;
    }
  }

  uint32_t Function(uint32_t process, uint64_t address, bool leaf) {
    uint64_t lookup = leaf ? address : address - 1;  // a return address is past the call
    auto& cache = cache_[process];
    auto cached = cache.find(lookup);
    if (cached != cache.end()) return cached->second;
    uint32_t id = Resolve(process, lookup);
    cache.emplace(lookup, id);
    return id;
  }

  uint32_t Named(const std::string& name, const std::string& module) {
    auto [it, inserted] = functions_.emplace(module + '\n' + name,
                                             static_cast<uint32_t>(profile_.function_name.size()));
    if (inserted) {
      profile_.function_name.push_back(name);
      profile_.function_module.push_back(module);
    }
    return it->second;
  }

 private:
  uint32_t Resolve(uint32_t process, uint64_t address) {
    auto maps = by_process_.find(process);
    if (maps == by_process_.end()) return Named("[unknown]", "");
    auto after = maps->second.upper_bound(address);
    if (after == maps->second.begin()) return Named("[unknown]", "");
    uint32_t row = std::prev(after)->second;
    const model::CpuMappingTable& t = m_.cpu.mappings;
    if (address >= t.end[row]) return Named("[unknown]", "");
    std::string path(m_.Str(t.path[row]));
    std::string module = BaseName(path);
    if (path.empty() || path[0] == '[') return Named(path.empty() ? "[anon]" : path, module);
    uint64_t file_offset = address - t.start[row] + t.file_offset[row];
    const ElfSymbols* elf = Elf(path, t.build_id[row]);
    uint64_t link_address = 0;
    if (elf != nullptr && elf->FileOffsetToAddress(file_offset, &link_address)) {
      if (const std::string* name = elf->Find(link_address)) {
        auto [it, inserted] = demangled_.emplace(name, std::string());
        if (inserted) it->second = Demangle(*name);
        return Named(it->second, module);
      }
    }
    char text[64];
    std::snprintf(text, sizeof(text), "+0x%llx", static_cast<unsigned long long>(file_offset));
    return Named(module + text, module);
  }

  const ElfSymbols* Elf(const std::string& path, const std::string& recorded_build_id) {
    auto [it, inserted] = elves_.emplace(path, nullptr);
    if (!inserted) return it->second.get();
    auto elf = std::make_unique<ElfSymbols>();
    std::string error;
    if (!elf->Load(path, &error)) {
      profile_.warnings.push_back("cannot symbolise " + error);
      return nullptr;
    }
    if (!recorded_build_id.empty() && elf->build_id() != recorded_build_id) {
      profile_.warnings.push_back(path + " changed since collection (build-id " +
                                  recorded_build_id + " recorded, " +
                                  (elf->build_id().empty() ? "none" : elf->build_id()) +
                                  " now): its frames are shown as file offsets");
      return nullptr;
    }
    it->second = std::move(elf);
    return it->second.get();
  }

  const model::Model& m_;
  CpuProfile& profile_;
  std::unordered_map<uint32_t, std::map<uint64_t, uint32_t>> by_process_;
  std::unordered_map<uint32_t, std::unordered_map<uint64_t, uint32_t>> cache_;
  std::unordered_map<std::string, uint32_t> functions_;
  std::unordered_map<std::string, std::unique_ptr<ElfSymbols>> elves_;
  std::unordered_map<const std::string*, std::string> demangled_;
};

// Appends stack `row`'s functions, leaf first: its native ones with its Python frames
// (model CpuStackTable::python_*) merged in, as py-spy --native does. The Python frames
// form one run per C call of the interpreter loop (each run ends, outwards, at an entry
// frame); when the native stack holds as many _PyEval_EvalFrameDefault frames as there
// are runs, each such frame is replaced by its run. Otherwise (a native chain cut short:
// CPython built without frame pointers, or a deeper stack than kept) the Python frames
// are placed below the native ones, at the root end, and the native frames stay as
// walked.
void MergePythonFrames(const model::Model& m, uint32_t row, const std::vector<uint32_t>& native,
                       Symbolizer& symbolizer, CpuProfile* profile) {
  const model::CpuStackTable& stacks = m.cpu.stacks;
  std::vector<uint32_t>* out = &profile->stack_functions;
  auto is_eval = [&](uint32_t function) {
    return profile->function_name[function] == "_PyEval_EvalFrameDefault";
  };
  uint32_t begin = stacks.python_begin[row], end = stacks.python_begin[row + 1];
  if (begin == end) {
    out->insert(out->end(), native.begin(), native.end());
    return;
  }
  auto python = [&](uint32_t i) {
    return symbolizer.Named(std::string(m.Str(stacks.python_name[i])),
                            std::string(m.Str(stacks.python_file[i])));
  };
  size_t runs = 0;
  for (uint32_t i = begin; i < end; ++i) runs += stacks.python_entry[i];
  if (stacks.python_entry[end - 1] == 0) ++runs;  // the outermost run lost its entry frame
  size_t evals = static_cast<size_t>(std::count_if(native.begin(), native.end(), is_eval));
  if (evals != runs || stacks.python_truncated[row]) {
    out->insert(out->end(), native.begin(), native.end());
    for (uint32_t i = begin; i < end; ++i) out->push_back(python(i));
    return;
  }
  uint32_t next = begin;
  for (uint32_t function : native) {
    if (!is_eval(function)) {
      out->push_back(function);
      continue;
    }
    while (next < end) {
      out->push_back(python(next));
      if (stacks.python_entry[next++]) break;
    }
  }
}

}  // namespace

CpuProfile SymbolizeCpuProfile(const model::Model& m) {
  CpuProfile profile;
  Symbolizer symbolizer(m, &profile);
  const model::CpuStackTable& stacks = m.cpu.stacks;
  uint32_t kernel = symbolizer.Named("[kernel]", "[kernel]");
  profile.stack_begin.reserve(stacks.size() + 1);
  std::unique_ptr<DwarfUnwinder> unwinder;
  std::vector<uint64_t> unwound;
  std::vector<uint32_t> native;
  for (uint32_t row = 0; row < stacks.size(); ++row) {
    if (stacks.kernel_leaf[row]) profile.stack_functions.push_back(kernel);
    std::span<const uint64_t> frames(stacks.frames.data() + stacks.begin[row],
                                     stacks.begin[row + 1] - stacks.begin[row]);
    if (stacks.copy[row] != UINT32_MAX) {
      if (unwinder == nullptr) unwinder = std::make_unique<DwarfUnwinder>(m);
      unwinder->Unwind(stacks.process[row], stacks.copy[row], &unwound);
      frames = unwound;
    }
    native.clear();
    for (size_t f = 0; f < frames.size(); ++f) {
      native.push_back(symbolizer.Function(stacks.process[row], frames[f], f == 0));
    }
    MergePythonFrames(m, row, native, symbolizer, &profile);
    profile.stack_begin.push_back(static_cast<uint32_t>(profile.stack_functions.size()));
  }
  if (unwinder != nullptr) {
    profile.warnings.insert(profile.warnings.end(), unwinder->warnings().begin(),
                            unwinder->warnings().end());
  }
  return profile;
}

std::vector<ThreadCpuCost> CpuCostByThread(const model::Model& m, const CpuProfile& profile) {
  // Samples per distinct (thread, stack) first: stacks repeat, so the per-frame work runs
  // once per distinct pair instead of once per sample.
  std::unordered_map<uint64_t, uint64_t> pairs;
  for (size_t i = 0; i < m.cpu.samples.size(); ++i) {
    if (m.cpu.samples.flags[i] & format::kCpuSampleOffCpu) continue;
    pairs[(uint64_t{m.cpu.samples.thread[i]} << 32) | m.cpu.samples.stack[i]]++;
  }
  std::unordered_map<uint32_t, ThreadCpuCost> threads;
  ThreadCpuCost all{model::kNoRow, 0, {}};
  std::unordered_map<uint32_t, std::unordered_map<uint32_t, FunctionCost>> costs;
  std::vector<uint64_t> seen(profile.function_name.size(), UINT64_MAX);
  uint64_t pair_index = 0;
  for (const auto& [key, count] : pairs) {
    uint32_t thread = static_cast<uint32_t>(key >> 32);
    threads.try_emplace(thread, ThreadCpuCost{thread, 0, {}}).first->second.samples += count;
    all.samples += count;
    auto stack = profile.Stack(static_cast<uint32_t>(key));
    ++pair_index;
    auto& thread_costs = costs[thread];
    auto& all_costs = costs[model::kNoRow];
    for (size_t f = 0; f < stack.size(); ++f) {
      uint32_t fn = stack[f];
      bool first_on_stack = seen[fn] != pair_index;
      seen[fn] = pair_index;
      for (auto* table : {&thread_costs, &all_costs}) {
        FunctionCost& cost = table->try_emplace(fn, FunctionCost{fn, 0, 0}).first->second;
        if (f == 0) cost.self += count;
        if (first_on_stack) cost.total += count;
      }
    }
  }
  auto finish = [&](ThreadCpuCost& t) {
    for (auto& [fn, cost] : costs[t.thread]) t.functions.push_back(cost);
    std::sort(t.functions.begin(), t.functions.end(),
              [](const FunctionCost& a, const FunctionCost& b) {
                if (a.self != b.self) return a.self > b.self;
                return a.total != b.total ? a.total > b.total : a.function < b.function;
              });
  };
  std::vector<ThreadCpuCost> out;
  for (auto& [thread, cost] : threads) out.push_back(std::move(cost));
  std::sort(out.begin(), out.end(), [](const ThreadCpuCost& a, const ThreadCpuCost& b) {
    return a.samples != b.samples ? a.samples > b.samples : a.thread < b.thread;
  });
  for (ThreadCpuCost& t : out) finish(t);
  finish(all);
  out.push_back(std::move(all));
  return out;
}

std::map<std::string, uint64_t> FoldedStacks(const model::Model& m, const CpuProfile& profile,
                                             bool off_cpu, std::span<const uint8_t> threads) {
  std::map<std::string, uint64_t> folded;
  auto kept = [&](uint32_t thread) { return threads.empty() || threads[thread] != 0; };
  std::unordered_map<uint32_t, std::string> text;  // stack row → "root;...;leaf"
  auto stack_text = [&](uint32_t row) -> const std::string& {
    auto [it, inserted] = text.emplace(row, std::string());
    if (inserted) {
      auto stack = profile.Stack(row);
      for (size_t f = stack.size(); f-- > 0;) {
        if (!it->second.empty()) it->second += ';';
        it->second += profile.function_name[stack[f]];
      }
      if (it->second.empty()) it->second = "[unknown]";
    }
    return it->second;
  };
  if (off_cpu) {
    const model::ThreadStateTable& s = m.cpu.thread_states;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s.stack[i] == UINT32_MAX || !kept(s.thread[i])) continue;
      folded[stack_text(s.stack[i])] += static_cast<uint64_t>(s.end[i] - s.ts[i]) / 1000;
    }
    return folded;
  }
  std::vector<uint64_t> per_stack(m.cpu.stacks.size(), 0);
  for (size_t i = 0; i < m.cpu.samples.size(); ++i) {
    if (m.cpu.samples.flags[i] & format::kCpuSampleOffCpu || !kept(m.cpu.samples.thread[i])) {
      continue;
    }
    per_stack[m.cpu.samples.stack[i]]++;
  }
  for (uint32_t row = 0; row < per_stack.size(); ++row) {
    if (per_stack[row] > 0) folded[stack_text(row)] += per_stack[row];
  }
  return folded;
}

}  // namespace aiprof::analysis
