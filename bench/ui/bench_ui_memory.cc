// Where `aiprof ui`'s memory goes, on a run given as `aiprof ui` takes it: loads it through
// the same start-up (server::LoadUi), then prints
//   - per model column: rows, bytes in use (size × width), capacity bytes and resident bytes
//     (mincore on the column's pages: reserved capacity never written costs no memory);
//   - the string pool (text, views, hash index), the LOD index, the analyses' results;
//   - the process's RSS and malloc's view (mallinfo2: heap in use, heap free but kept,
//     mapped blocks) at each stage: after the parse, at ready (what `aiprof ui` holds when
//     it prints its URL), after the analyses and the advice, and the peak (VmHWM) of each.
//   bench_ui_memory <PROF dir or its parent>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "model/discovery.h"
#include "model/parser.h"
#include "server/ui_api.h"

namespace {

using aiprof::model::Model;

double MiB(double bytes) {
  return bytes / (1 << 20);
}

long StatusKb(const char* field) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  long value = 0;
  const size_t length = std::strlen(field);
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::strncmp(line, field, length) == 0 && line[length] == ':') {
      value = std::strtol(line + length + 1, nullptr, 10);
    }
  }
  std::fclose(f);
  return value;
}

// Resets VmHWM to the current RSS (Linux ≥ 4.0), so each stage's peak is its own.
void ResetPeak() {
  FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (f == nullptr) return;
  std::fputs("5", f);
  std::fclose(f);
}

void Stage(const char* name, size_t model_bytes) {
  const struct mallinfo2 heap = mallinfo2();
  const double rss = static_cast<double>(StatusKb("VmRSS")) * 1024;
  const double peak = static_cast<double>(StatusKb("VmHWM")) * 1024;
  std::printf(
      "%-34s RSS %7.1f MiB = %.3fx, peak %7.1f MiB = %.3fx | malloc: heap in use %7.1f MiB, "
      "heap free but kept %6.1f MiB, mapped blocks %7.1f MiB\n",
      name, MiB(rss), rss / static_cast<double>(model_bytes), MiB(peak),
      peak / static_cast<double>(model_bytes), MiB(static_cast<double>(heap.uordblks)),
      MiB(static_cast<double>(heap.fordblks)), MiB(static_cast<double>(heap.hblkhd)));
  ResetPeak();
}

size_t ResidentBytes(const void* data, size_t bytes) {
  if (data == nullptr || bytes == 0) return 0;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes + page - 1) & ~(page - 1);
  std::vector<unsigned char> in((end - begin) / page);
  if (mincore(reinterpret_cast<void*>(begin), end - begin, in.data()) != 0) return 0;
  size_t resident = 0;
  for (unsigned char p : in) resident += (p & 1) != 0 ? page : 0;
  return std::min(resident, bytes + page);  // the first and last pages may be shared
}

struct Totals {
  size_t used = 0, capacity = 0, resident = 0;
};

template <typename T>
void Column(const char* table, const char* name, const std::vector<T>& column, Totals& totals) {
  const size_t used = column.size() * sizeof(T);
  const size_t capacity = column.capacity() * sizeof(T);
  const size_t resident = ResidentBytes(column.data(), capacity);
  size_t zero = 0;  // whole 4 KiB pages of the used part that hold only zeros
  const auto* bytes = reinterpret_cast<const unsigned char*>(column.data());
  for (size_t at = 0; at + 4096 <= used; at += 4096) {
    bool all_zero = true;
    for (size_t k = 0; k < 4096 && all_zero; ++k) all_zero = bytes[at + k] == 0;
    zero += all_zero ? 4096 : 0;
  }
  totals.used += used;
  totals.capacity += capacity;
  totals.resident += resident;
  if (capacity < (1 << 20)) return;  // the small tables only in the totals
  std::printf(
      "  %-9s %-12s %11zu rows x %zu B: used %7.1f MiB, capacity %7.1f MiB, resident %7.1f MiB, "
      "zero pages %7.1f MiB\n",
      table, name, column.size(), sizeof(T), MiB(static_cast<double>(used)),
      MiB(static_cast<double>(capacity)), MiB(static_cast<double>(resident)),
      MiB(static_cast<double>(zero)));
}

void Columns(const Model& m) {
  Totals t;
  Column("slices", "ts", m.slices.ts, t);
  Column("slices", "end", m.slices.end, t);
  Column("slices", "track", m.slices.track, t);
  Column("slices", "name", m.slices.name, t);
  Column("slices", "category", m.slices.category, t);
  Column("slices", "args", m.slices.args, t);
  Column("slices", "depth", m.slices.depth, t);
  Column("slices", "parent", m.slices.parent, t);
  Column("slices", "flags", m.slices.flags, t);
  Column("args", "key", m.args.key, t);
  Column("args", "type", m.args.type, t);
  Column("args", "value", m.args.value, t);
  Column("args", "set_begin", m.args.set_begin, t);
  Column("instants", "ts", m.instants.ts, t);
  Column("instants", "track", m.instants.track, t);
  Column("instants", "name", m.instants.name, t);
  Column("instants", "category", m.instants.category, t);
  Column("instants", "args", m.instants.args, t);
  Column("counters", "series", m.counters.series, t);
  Column("counters", "ts", m.counters.ts, t);
  Column("counters", "value", m.counters.value, t);
  Column("flows", "id", m.flows.id, t);
  Column("flows", "from_slice", m.flows.from_slice, t);
  Column("flows", "to_slice", m.flows.to_slice, t);
  Column("flows", "category", m.flows.category, t);
  Column("markers", "is_instant", m.markers.is_instant, t);
  Column("markers", "row", m.markers.row, t);
  Column("markers", "event_type", m.markers.event_type, t);
  Column("markers", "domain", m.markers.domain, t);
  Column("markers", "detail", m.markers.detail, t);
  Column("steps", "slice", m.steps.slice, t);
  Column("cpu", "ts", m.cpu.samples.ts, t);
  Column("cpu", "stack", m.cpu.samples.stack, t);
  Column("cpu", "frames", m.cpu.stacks.frames, t);
  size_t text = 0;
  for (aiprof::model::StringId id = 0; id < m.strings.size(); ++id) {
    text += m.strings.Get(id).size();
  }
  std::printf(
      "  columns: used %.1f MiB, capacity %.1f MiB, resident %.1f MiB; strings: %zu, %.2f MiB "
      "of text\n",
      MiB(static_cast<double>(t.used)), MiB(static_cast<double>(t.capacity)),
      MiB(static_cast<double>(t.resident)), m.strings.size(), MiB(static_cast<double>(text)));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bench_ui_memory <PROF dir or its parent>\n");
    return 2;
  }
  const aiprof::model::InputDiscovery found = aiprof::model::DiscoverRuns({argv[1]});
  if (found.runs.empty()) {
    std::fprintf(stderr, "bench_ui_memory: %s\n", found.error.c_str());
    return 2;
  }
  std::vector<std::string> dirs, files;
  for (const auto& run : found.runs) {
    dirs.push_back(run.path);
    files.insert(files.end(), run.files.begin(), run.files.end());
  }
  ResetPeak();
  aiprof::model::ParseOptions parse;
  parse.threads = std::max(1u, std::thread::hardware_concurrency());
  Model model = aiprof::model::ParseFiles(files, parse);
  const size_t model_bytes = aiprof::server::ApproximateModelBytes(model);
  std::printf("model as parsed (%zu slices), counts.model_bytes %.1f MiB:\n", model.slices.size(),
              MiB(static_cast<double>(model_bytes)));
  Columns(model);
  Stage("after the parse", model_bytes);
  aiprof::server::UiApi api(std::move(model), dirs);
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  malloc_trim(0);
  std::printf("model as served:\n");
  Columns(api.model());
  std::printf("LOD index %.1f MiB\n", MiB(static_cast<double>(api.index().MemoryBytes())));
  Stage("at ready (URL printed)", model_bytes);
  std::thread warm([&api] {
    api.analysis().Analyses();
    api.advice().Answer();
    api.comparison().Answer();
  });
  warm.join();
  Stage("analyses and advice done", model_bytes);
  std::thread path([&api] { api.critical_path().Summary(); });
  path.join();
  Stage("critical path solved", model_bytes);
  const aiprof::analysis::AnalysisSet& a = api.analysis().Analyses();
  for (const aiprof::analysis::OverlapScope& scope : a.overlap.scopes) {
    std::printf(
        "overlap scope of process %u: computing %zu intervals (capacity %.1f MiB), "
        "communication %zu (capacity %.1f MiB)\n",
        scope.process, scope.computing.size(),
        MiB(static_cast<double>(scope.computing.capacity() * sizeof(aiprof::analysis::Interval))),
        scope.communication.size(),
        MiB(static_cast<double>(scope.communication.capacity() *
                                sizeof(aiprof::analysis::Interval))));
  }
  std::printf("steps %zu, step rows %zu, memory blocks %zu, data preparation waits %zu\n",
              a.steps.steps.size(), a.step_breakdown.rows.size(), a.memory.blocks.size(),
              a.data_preparation.wait_intervals.size());
  malloc_stats();
  return 0;
}
