#include "model/merge.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

namespace aiprof::model {
namespace {

template <typename T>
void Append(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

struct Remap {
  std::vector<StringId> strings;
  std::vector<uint32_t> processes;
  std::vector<uint32_t> threads;
  uint32_t tracks = 0, slices = 0, instants = 0, series = 0, arg_sets = 0;
  StringId S(StringId id) const { return strings[id]; }
};

class Merger {
 public:
  explicit Merger(Model* out) : out_(*out) {}

  Remap Add(Model& in) {
    Remap r;
    r.strings.resize(in.strings.size());
    for (StringId id = 0; id < in.strings.size(); ++id) {
      r.strings[id] = out_.strings.Intern(in.strings.Get(id));
    }
    AddProcesses(in, r);
    AddThreads(in, r);
    r.tracks = static_cast<uint32_t>(out_.tracks.size());
    for (size_t t = 0; t < in.tracks.size(); ++t) {
      out_.tracks.thread.push_back(r.threads[in.tracks.thread[t]]);
      out_.tracks.lane.push_back(in.tracks.lane[t]);
    }
    AddArgs(in, r);
    AddSlices(in, r);
    AddInstants(in, r);
    AddCounters(in, r);
    AddRest(in, r);
    return r;
  }

 private:
  static std::string ProcessKey(const Model& m, uint32_t row) {
    return std::string(m.Str(m.processes.host[row])) + '\n' +
           std::to_string(m.processes.device_id[row]) + '\n' + std::to_string(m.processes.pid[row]);
  }

  void AddProcesses(Model& in, Remap& r) {
    ProcessTable& o = out_.processes;
    const ProcessTable& p = in.processes;
    for (uint32_t row = 0; row < p.size(); ++row) {
      std::string key = ProcessKey(in, row);
      auto [it, inserted] = process_index_.emplace(key, static_cast<uint32_t>(o.size()));
      if (inserted) {
        o.pid.push_back(p.pid[row]);
        o.host.push_back(r.S(p.host[row]));
        o.name.push_back(r.S(p.name[row]));
        o.label.push_back(r.S(p.label[row]));
        o.sort_index.push_back(p.sort_index[row]);
        o.device_id.push_back(p.device_id[row]);
        o.rank.push_back(p.rank[row]);
        o.metadata.push_back(p.metadata[row]);
      } else if (o.metadata[it->second].empty() && !p.metadata[row].empty()) {
        o.metadata[it->second] = p.metadata[row];
        o.name[it->second] = r.S(p.name[row]);
        o.rank[it->second] = p.rank[row];
      }
      r.processes.push_back(it->second);
    }
  }

  void AddThreads(Model& in, Remap& r) {
    ThreadTable& o = out_.threads;
    const ThreadTable& t = in.threads;
    for (uint32_t row = 0; row < t.size(); ++row) {
      uint32_t process = r.processes[t.process[row]];
      uint64_t key = (uint64_t{process} << 32) | t.tid[row];
      auto [it, inserted] = thread_index_.emplace(key, static_cast<uint32_t>(o.size()));
      if (inserted) {
        o.process.push_back(process);
        o.tid.push_back(t.tid[row]);
        o.name.push_back(r.S(t.name[row]));
        o.sort_index.push_back(t.sort_index[row]);
      } else if (o.name[it->second] == kNoString) {
        o.name[it->second] = r.S(t.name[row]);
      }
      r.threads.push_back(it->second);
    }
  }

  void AddArgs(Model& in, Remap& r) {
    ArgTable& o = out_.args;
    const ArgTable& a = in.args;
    uint32_t base = static_cast<uint32_t>(o.key.size());
    r.arg_sets = static_cast<uint32_t>(o.sets());
    for (size_t i = 0; i < a.key.size(); ++i) {
      o.key.push_back(r.S(a.key[i]));
      o.type.push_back(a.type[i]);
      bool is_string = a.type[i] == ArgType::kString || a.type[i] == ArgType::kJson;
      o.value.push_back(is_string ? r.S(static_cast<StringId>(a.value[i])) : a.value[i]);
    }
    // Set 0 of the fragment maps to the model's set 0; sets 1.. follow.
    for (size_t set = 1; set < a.sets(); ++set) o.set_begin.push_back(base + a.set_begin[set + 1]);
  }
  uint32_t ArgSet(const Remap& r, uint32_t set) const {
    return set == 0 ? 0 : r.arg_sets + set - 1;
  }

  void AddSlices(Model& in, Remap& r) {
    SliceTable& o = out_.slices;
    SliceTable& s = in.slices;
    r.slices = static_cast<uint32_t>(o.size());
    int64_t offset = offset_;
    for (size_t i = 0; i < s.size(); ++i) {
      o.ts.push_back(s.ts[i] + offset);
      o.end.push_back(s.end[i] + offset);
      o.track.push_back(s.track[i] + r.tracks);
      o.name.push_back(r.S(s.name[i]));
      o.category.push_back(r.S(s.category[i]));
      o.args.push_back(ArgSet(r, s.args[i]));
      o.parent.push_back(s.parent[i] == kNoRow ? kNoRow : s.parent[i] + r.slices);
    }
    Append(o.depth, s.depth);
    Append(o.flags, s.flags);
    s = SliceTable{};  // release the fragment's copy early: peak memory
  }

  void AddInstants(Model& in, Remap& r) {
    InstantTable& o = out_.instants;
    const InstantTable& s = in.instants;
    r.instants = static_cast<uint32_t>(o.size());
    for (size_t i = 0; i < s.size(); ++i) {
      o.ts.push_back(s.ts[i] + offset_);
      o.track.push_back(s.track[i] + r.tracks);
      o.name.push_back(r.S(s.name[i]));
      o.category.push_back(r.S(s.category[i]));
      o.args.push_back(ArgSet(r, s.args[i]));
    }
  }

  void AddCounters(Model& in, Remap& r) {
    CounterSeriesTable& os = out_.counter_series;
    const CounterSeriesTable& cs = in.counter_series;
    r.series = static_cast<uint32_t>(os.size());
    for (size_t i = 0; i < cs.size(); ++i) {
      os.name.push_back(r.S(cs.name[i]));
      os.process.push_back(r.processes[cs.process[i]]);
      os.scope.push_back(cs.scope[i]);
      os.instance.push_back(cs.instance[i]);
      os.unit.push_back(r.S(cs.unit[i]));
    }
    CounterTable& o = out_.counters;
    const CounterTable& c = in.counters;
    for (size_t i = 0; i < c.size(); ++i) {
      o.series.push_back(c.series[i] + r.series);
      o.ts.push_back(c.ts[i] + offset_);
    }
    Append(o.value, c.value);
  }

  void AddRest(Model& in, Remap& r) {
    MarkerTable& om = out_.markers;
    const MarkerTable& m = in.markers;
    uint32_t detail_base = static_cast<uint32_t>(om.details.size());
    for (size_t i = 0; i < m.size(); ++i) {
      om.is_instant.push_back(m.is_instant[i]);
      om.row.push_back(m.row[i] + (m.is_instant[i] ? r.instants : r.slices));
      om.domain.push_back(r.S(m.domain[i]));
      om.detail.push_back(m.detail[i] == kNoRow ? kNoRow : m.detail[i] + detail_base);
    }
    Append(om.event_type, m.event_type);
    MarkerDetailTable& omd = om.details;
    const MarkerDetailTable& md = m.details;
    Append(omd.category, md.category);
    Append(omd.payload_type, md.payload_type);
    Append(omd.payload, md.payload);
    Append(omd.color_argb, md.color_argb);
    for (uint32_t thread : md.end_thread) {
      omd.end_thread.push_back(thread == kNoRow ? kNoRow : r.threads[thread]);
    }
    Append(omd.range_id, md.range_id);
    for (uint32_t device : md.device_slice) {
      omd.device_slice.push_back(device == kNoRow ? kNoRow : device + r.slices);
    }

    // Flows a fragment paired itself (an imported trace's flow ids are its own).
    FlowTable& of = out_.flows;
    const FlowTable& f = in.flows;
    for (size_t i = 0; i < f.size(); ++i) {
      of.id.push_back(f.id[i]);
      of.from_slice.push_back(f.from_slice[i] + r.slices);
      of.to_slice.push_back(f.to_slice[i] + r.slices);
      of.category.push_back(r.S(f.category[i]));
    }

    RecordedStepTable& os = out_.recorded_steps;
    const RecordedStepTable& s = in.recorded_steps;
    Append(os.step, s.step);
    for (uint32_t slice : s.slice) os.slice.push_back(slice + r.slices);
    DropTable& od = out_.drops;
    const DropTable& d = in.drops;
    for (size_t i = 0; i < d.size(); ++i) {
      od.thread.push_back(r.threads[d.thread[i]]);
      od.kind.push_back(d.kind[i]);
      od.count.push_back(d.count[i]);
      od.last_ts.push_back(d.last_ts[i] + offset_);
    }
    out_.cpu.Append(in.cpu, r.processes, r.threads, r.strings, offset_);
    for (DeviceProperties device : in.devices) {
      device.process = r.processes[device.process];
      device.name = r.S(device.name);
      // A device seen by several processes of the host is one process row: one row for it.
      if (out_.DeviceOfProcess(device.process) == nullptr) out_.devices.push_back(device);
    }
    for (HostProperties host : in.hosts) {
      host.host = r.S(host.host);
      auto known = std::find_if(out_.hosts.begin(), out_.hosts.end(),
                                [&](const HostProperties& h) { return h.host == host.host; });
      if (known == out_.hosts.end()) out_.hosts.push_back(host);
    }
    for (FileReport& file : in.files) out_.files.push_back(std::move(file));
    out_.raw_bytes += in.raw_bytes;
    out_.records += in.records;
    out_.unknown_records += in.unknown_records;
    out_.unmatched_ends += in.unmatched_ends;
    if (in.start_ns != 0 && (out_.start_ns == 0 || in.start_ns < out_.start_ns)) {
      out_.start_ns = in.start_ns;
    }
    out_.end_ns = std::max(out_.end_ns, in.end_ns);
  }

 public:
  int64_t offset_ = 0;

 private:
  Model& out_;
  std::unordered_map<std::string, uint32_t> process_index_;
  std::unordered_map<uint64_t, uint32_t> thread_index_;
};

// Pairs flow endpoints by (category, key) across files.
void PairFlows(const std::vector<Fragment>& fragments, const std::vector<Remap>& remaps,
               Model& out) {
  std::unordered_map<std::string, uint32_t> starts;
  auto key_of = [](StringId category, uint64_t key) {
    return std::to_string(category) + ':' + std::to_string(key);
  };
  for (size_t i = 0; i < fragments.size(); ++i) {
    for (const auto& e : fragments[i].flow_endpoints) {
      if (e.is_start) {
        starts[key_of(remaps[i].S(e.category), e.key)] = e.slice + remaps[i].slices;
      }
    }
  }
  for (size_t i = 0; i < fragments.size(); ++i) {
    for (const auto& e : fragments[i].flow_endpoints) {
      if (e.is_start) continue;
      StringId category = remaps[i].S(e.category);
      auto found = starts.find(key_of(category, e.key));
      if (found == starts.end()) continue;
      out.flows.id.push_back(e.key);
      out.flows.from_slice.push_back(found->second);
      out.flows.to_slice.push_back(e.slice + remaps[i].slices);
      out.flows.category.push_back(category);
    }
  }
}

Remap IdentityRemap(const Model& m) {
  Remap r;
  r.strings.resize(m.strings.size());
  for (StringId id = 0; id < r.strings.size(); ++id) r.strings[id] = id;
  return r;
}

}  // namespace

Model MergeFragments(std::vector<Fragment> fragments) {
  // One realtime offset per host: the sample-weighted mean over that host's raw files
  // (imported traces are in realtime already).
  std::map<std::string, std::pair<long double, size_t>> host_offsets;
  for (const Fragment& f : fragments) {
    if (f.realtime) continue;
    auto& [sum, count] = host_offsets[f.hostname];
    size_t weight = std::max<size_t>(f.clock.samples(), 1);
    sum += static_cast<long double>(f.clock.realtime_offset_ns()) * weight;
    count += weight;
  }
  Model out;
  if (fragments.size() == 1) {
    // The common case (one process per PROF_* directory): shift times in place instead of
    // copying every table, which would double the peak memory.
    Fragment& f = fragments[0];
    out = std::move(f.model);
    int64_t offset = f.realtime ? 0 : f.clock.realtime_offset_ns();
    for (int64_t& ts : out.slices.ts) ts += offset;
    for (int64_t& end : out.slices.end) end += offset;
    for (int64_t& ts : out.instants.ts) ts += offset;
    for (int64_t& ts : out.counters.ts) ts += offset;
    for (int64_t& ts : out.drops.last_ts) ts += offset;
    out.cpu.ShiftTimes(offset);
    PairFlows(fragments, std::vector<Remap>(1, IdentityRemap(out)), out);
    return out;
  }
  Merger merger(&out);
  std::vector<Remap> remaps;
  for (Fragment& f : fragments) {
    if (f.realtime) {
      merger.offset_ = 0;
    } else {
      auto& [sum, count] = host_offsets[f.hostname];
      merger.offset_ = static_cast<int64_t>(sum / count);
    }
    remaps.push_back(merger.Add(f.model));
    f.model = Model{};
  }
  PairFlows(fragments, remaps, out);
  return out;
}

}  // namespace aiprof::model
