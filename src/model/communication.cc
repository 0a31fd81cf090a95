#include "model/communication.h"

#include <algorithm>
#include <bit>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <unordered_map>

#include "format/records_torch.h"
#include "model/ascii_case.h"
#include "model/p2p_peer.h"
#include "model/process_group_call.h"
#include "model/rank_identity.h"

namespace aiprof::model {
namespace {

constexpr const char* kBackends[] = {"gloo", "nccl", "mpi", "ucc"};

// Lower case, without '_': "all_reduce" and "AllReduce" read the same.
std::string Squash(std::string_view text) {
  std::string squashed;
  squashed.reserve(text.size());
  for (char c : text) {
    if (c != '_') squashed += AsciiLower(c);
  }
  return squashed;
}

// Longer names first: "allreduce" holds "reduce", "reducescatter" holds "scatter".
CommOpType TypeFromWords(std::string_view squashed) {
  static constexpr std::pair<const char*, CommOpType> kWords[] = {
      {"alltoall", CommOpType::kAllToAll},
      {"allreduce", CommOpType::kAllReduce},
      {"reducescatter", CommOpType::kReduceScatter},
      {"allgather", CommOpType::kAllGather},
      {"broadcast", CommOpType::kBroadcast},
      {"barrier", CommOpType::kBarrier},
      {"sendrecv", CommOpType::kSendRecv},
      {"send", CommOpType::kSend},
      {"recv", CommOpType::kRecv},
      {"gather", CommOpType::kGather},
      {"scatter", CommOpType::kScatter},
      {"reduce", CommOpType::kReduce},
  };
  for (const auto& [word, type] : kWords) {
    if (squashed.find(word) != std::string_view::npos) return type;
  }
  return CommOpType::kOther;
}

// c10::toString(ScalarType), the spelling of record_param_comms' "dtype".
constexpr const char* kC10Names[] = {
    "Byte",  "Char",   "Short",       "Int",          "Long",          "Half",
    "Float", "Double", "ComplexHalf", "ComplexFloat", "ComplexDouble", "Bool",
    "QInt8", "QUInt8", "QInt32",      "BFloat16",     "QUInt4x2",      "QUInt2x4"};

// The profiler's "Input type" spelling ("float", "c10::Half") -> c10::ScalarType.
std::optional<uint8_t> ScalarTypeOfInputType(std::string_view type) {
  for (uint8_t t = 0; t < std::size(kC10Names); ++t) {
    if (type == format::TorchScalarTypeName(t)) return t;
  }
  return std::nullopt;
}

// NCCL kernel name tokens ("f32", "bf16", old "float") -> c10::ScalarType.
std::optional<uint8_t> ScalarTypeOfNcclToken(std::string_view token) {
  static constexpr std::pair<const char*, uint8_t> kTokens[] = {
      {"u8", 0},        {"uint8_t", 0},       {"i8", 1},      {"int8_t", 1}, {"i32", 3},
      {"int32_t", 3},   {"i64", 4},           {"int64_t", 4}, {"f16", 5},    {"half", 5},
      {"f32", 6},       {"float", 6},         {"f64", 7},     {"double", 7}, {"bf16", 15},
      {"bfloat16", 15}, {"__nv_bfloat16", 15}};
  for (const auto& [name, type] : kTokens) {
    if (token == name) return type;
  }
  return std::nullopt;
}

struct NameClass {
  bool is_comm = false;
  CommOpType type = CommOpType::kOther;
  std::string backend;
  std::optional<uint8_t> kernel_dtype;
};

NameClass ClassifyBackendRange(std::string_view name) {
  NameClass c;
  const size_t colon = name.find(':');
  if (colon == std::string_view::npos || colon + 1 >= name.size() || name[colon + 1] == ':') {
    return c;
  }
  const std::string_view prefix = name.substr(0, colon);
  for (const char* backend : kBackends) {
    if (prefix != backend) continue;
    c.is_comm = true;
    c.backend = backend;
    c.type = TypeFromWords(Squash(name.substr(colon + 1)));
  }
  return c;
}

NameClass ClassifyNcclKernel(std::string_view name) {
  NameClass c;
  if (!name.starts_with("nccl")) return c;
  c.is_comm = true;
  c.backend = "nccl";
  std::string_view rest = name.substr(4);
  for (std::string_view prefix : {"DevKernel_", "Kernel_"}) {
    if (rest.starts_with(prefix)) rest.remove_prefix(prefix.size());
  }
  c.type = TypeFromWords(Squash(rest));
  size_t start = 0;
  while (start <= rest.size() && !c.kernel_dtype) {
    const size_t end = std::min(rest.find('_', start), rest.size());
    // Old names end in a C type that holds '_' itself ("int8_t"): try the tail too.
    c.kernel_dtype = ScalarTypeOfNcclToken(rest.substr(start, end - start));
    if (!c.kernel_dtype) c.kernel_dtype = ScalarTypeOfNcclToken(rest.substr(start));
    start = end + 1;
  }
  return c;
}

NameClass ClassifyNcclApi(std::string_view name) {
  NameClass c;
  if (!name.starts_with("nccl")) return c;
  c.type = TypeFromWords(Squash(name.substr(4)));
  c.is_comm = c.type != CommOpType::kOther;
  c.backend = "nccl";
  return c;
}

// Tensor inputs of a torch operator: element count and dtype, from its "Input Dims" and
// "Input type" arguments (present with record_shapes).
struct TensorInputs {
  bool known = false;
  int64_t nelems = 0;
  std::optional<uint8_t> scalar_type;
};

TensorInputs ParseTensorInputs(std::string_view dims_text, std::string_view types_text) {
  TensorInputs result;
  const auto dims = nlohmann::json::parse(dims_text, nullptr, false);
  const auto types = nlohmann::json::parse(types_text, nullptr, false);
  if (!dims.is_array() || !types.is_array() || dims.size() != types.size()) return result;
  result.known = true;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!types[i].is_string() || !dims[i].is_array()) continue;
    const auto scalar_type = ScalarTypeOfInputType(types[i].get<std::string>());
    if (!scalar_type) continue;
    // Dimensions come from the raw data: a corrupt one must not overflow (saturates instead).
    int64_t elements = 1;
    for (const auto& d : dims[i]) {
      const int64_t dim = d.is_number_integer() ? d.get<int64_t>() : 0;
      if (dim <= 0 || elements == 0) {
        elements = 0;
      } else if (__builtin_mul_overflow(elements, dim, &elements)) {
        elements = INT64_MAX;
      }
    }
    if (__builtin_add_overflow(result.nelems, elements, &result.nelems)) result.nelems = INT64_MAX;
    if (!result.scalar_type) result.scalar_type = scalar_type;
  }
  return result;
}

// Collectives repeat the same few shapes: each (Input Dims, Input type) pair is parsed once.
class TensorInputReader {
 public:
  explicit TensorInputReader(const Model& m)
      : m_(m), dims_key_(m.strings.Find("Input Dims")), types_key_(m.strings.Find("Input type")) {}

  TensorInputs Read(uint32_t set) {
    const StringId dims = m_.args.TextOfType(set, dims_key_, ArgType::kJson).value_or(kNoString);
    const StringId types = m_.args.TextOfType(set, types_key_, ArgType::kJson).value_or(kNoString);
    if (dims == kNoString || types == kNoString) return {};
    auto [it, inserted] = parsed_.try_emplace(uint64_t{dims} << 32 | types);
    if (inserted) it->second = ParseTensorInputs(m_.Str(dims), m_.Str(types));
    return it->second;
  }

 private:
  const Model& m_;
  StringId dims_key_, types_key_;
  std::unordered_map<uint64_t, TensorInputs> parsed_;
};

// Sizes come from recorded shapes: a corrupt one saturates instead of overflowing.
int64_t SaturatingMultiply(int64_t a, int64_t b) {
  int64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? INT64_MAX : product;
}

void FillSizes(CommOp& op, int64_t in_nelems, std::optional<uint8_t> scalar_type) {
  if (op.type == CommOpType::kBarrier) {
    op.in_nelems = op.out_nelems = op.bytes = 0;
    return;
  }
  if (scalar_type) op.dtype = kC10Names[*scalar_type];
  if (in_nelems < 0) return;
  op.in_nelems = in_nelems;
  const int64_t group = op.group_size;
  switch (op.type) {
    case CommOpType::kAllGather:
      op.out_nelems = group > 0 ? SaturatingMultiply(in_nelems, group) : kCommUnknown;
      break;
    case CommOpType::kReduceScatter:
      op.out_nelems = group > 0 ? in_nelems / group : kCommUnknown;
      break;
    case CommOpType::kGather:
    case CommOpType::kScatter:
    case CommOpType::kOther:
      break;  // depends on the root and on arguments not recorded
    default:
      op.out_nelems = in_nelems;
  }
  op.element_bytes = scalar_type ? format::TorchScalarTypeBytes(*scalar_type) : 0;
  if (op.element_bytes > 0) {
    op.bytes = SaturatingMultiply(std::max(op.in_nelems, op.out_nelems), op.element_bytes);
  }
}

// Hands out each recorded group's entry in CommunicationOps::group_ranks, copying the
// group's ranks at its first operation only.
class GroupIndex {
 public:
  GroupIndex(const std::vector<RankIdentity>& identities,
             std::vector<std::vector<int32_t>>& group_ranks)
      : identities_(identities), group_ranks_(group_ranks), entries_(identities.size()) {}

  // The entry of the group `name` of the process's identity; kNoGroup when it lists none
  // of that name (groups recorded before the call only).
  uint32_t Of(uint32_t process, std::string_view name) {
    const std::vector<ProcessGroupInfo>& groups = identities_[process].groups;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (groups[g].name != name) continue;
      std::vector<uint32_t>& entries = entries_[process];
      if (entries.empty()) entries.assign(groups.size(), CommOp::kNoGroup);
      if (entries[g] == CommOp::kNoGroup) {
        entries[g] = static_cast<uint32_t>(group_ranks_.size());
        group_ranks_.push_back(groups[g].ranks);
      }
      return entries[g];
    }
    return CommOp::kNoGroup;
  }

 private:
  const std::vector<RankIdentity>& identities_;
  std::vector<std::vector<int32_t>>& group_ranks_;
  std::vector<std::vector<uint32_t>> entries_;  // by process, by position in its groups
};

// The recorded group of the operation, with its size from the group's ranks; a name the
// identity does not list is kept without ranks.
void SetProcessGroup(CommOp& op, std::string_view name, GroupIndex& groups,
                     const CommunicationOps& result) {
  if (name.empty()) return;
  op.process_group = name;
  op.group = groups.Of(op.process, name);
  if (op.group != CommOp::kNoGroup)
    op.group_size = static_cast<int32_t>(result.group_ranks[op.group].size());
}

// c10d names a sub-group's peer by its rank in the group: torch's new_group sorts the
// group's ranks, so group rank i is the i-th global rank of the group.
int32_t GlobalRank(const CommOp& op, int32_t peer, const CommunicationOps& result) {
  if (peer < 0 || op.process_group.empty()) return peer;
  const std::vector<int32_t>& ranks = result.GroupRanks(op);
  if (static_cast<size_t>(peer) >= ranks.size()) return -1;
  return ranks[static_cast<size_t>(peer)];
}

}  // namespace

std::string_view CommOpTypeName(CommOpType type) {
  static constexpr const char* kNames[] = {
      "allreduce", "allgather", "reducescatter", "broadcast", "reduce",   "alltoall", "gather",
      "scatter",   "barrier",   "send",          "recv",      "sendrecv", "other"};
  return kNames[static_cast<size_t>(type)];
}

std::string_view CommSourceName(CommSource source) {
  switch (source) {
    case CommSource::kBackendRange:
      return "backend";
    case CommSource::kNcclKernel:
      return "nccl_kernel";
    case CommSource::kNcclApi:
      return "nccl_api";
  }
  return "";
}

const std::vector<int32_t>& CommunicationOps::GroupRanks(const CommOp& op) const {
  static const std::vector<int32_t> kNone;
  return op.group == CommOp::kNoGroup ? kNone : group_ranks[op.group];
}

CommunicationOps ClassifyCommunication(const Model& m) {
  CommunicationOps result;
  std::vector<CommOp>& ops = result.ops;
  const SliceTable& s = m.slices;
  // Names and categories are classified once per string, not per slice.
  const StringId kernel = m.strings.Find("kernel");
  std::unordered_map<StringId, NameClass> backend_names, kernel_names, api_names;
  std::vector<uint8_t> name_kind(m.strings.size(), 0);  // 1 backend range, 2 nccl-ish
  for (StringId id = 0; id < m.strings.size(); ++id) {
    const std::string_view text = m.strings.Get(id);
    if (text.starts_with("nccl")) name_kind[id] = 2;
    NameClass backend = ClassifyBackendRange(text);
    if (backend.is_comm) {
      name_kind[id] = 1;
      backend_names.emplace(id, std::move(backend));
    }
  }
  const bool backend_names_seen =
      std::find(name_kind.begin(), name_kind.end(), 1) != name_kind.end();
  if (!backend_names_seen && std::find(name_kind.begin(), name_kind.end(), 2) == name_kind.end()) {
    return result;  // most traces: no name is a communication name; skip the slice scans
  }
  // Per-slice scratch only where the trace has what it marks.
  std::vector<uint8_t> nccl_api_slice;
  const StringId nccl_domain = m.strings.Find("NCCL");
  for (size_t i = 0; nccl_domain != StringPool::kMissing && i < m.markers.size(); ++i) {
    if (!m.markers.is_instant[i] && m.markers.domain[i] == nccl_domain) {
      if (nccl_api_slice.empty()) nccl_api_slice.assign(s.size(), 0);
      nccl_api_slice[m.markers.row[i]] = 1;
    }
  }

  const std::vector<RankIdentity> identities = RankIdentities(m);
  GroupIndex groups(identities, result.group_ranks);
  TensorInputReader tensor_inputs(m);
  const P2pPeerReader peers(m);
  const ProcessGroupCallReader group_calls(m);
  // One tight scan of every slice finds the rows with a communication name (most of the
  // cost when few slices are communication; the classification below keeps too much in
  // registers for its loop to stay tight) and the processes with backend ranges.
  const std::span<const StringId> names(s.name);
  const std::span<const uint8_t> kind_of_name(name_kind);
  std::vector<uint32_t> named_rows;
  std::vector<uint8_t> has_backend_ranges(m.processes.size(), 0);
  for (uint32_t row = 0; row < names.size(); ++row) {
    const uint8_t kind = kind_of_name[names[row]];
    if (kind == 0) continue;
    named_rows.push_back(row);
    if (kind == 1) has_backend_ranges[m.ProcessOfThread(m.ThreadOfSlice(row))] = 1;
  }
  for (const uint32_t row : named_rows) {
    const uint8_t kind = kind_of_name[names[row]];
    const uint32_t process = m.ProcessOfThread(m.ThreadOfSlice(row));
    const NameClass* name_class = nullptr;
    CommSource source = CommSource::kBackendRange;
    if (kind == 1) {
      name_class = &backend_names.at(s.name[row]);
    } else if (s.category[row] == kernel) {
      source = CommSource::kNcclKernel;
      auto [it, inserted] = kernel_names.try_emplace(s.name[row]);
      if (inserted) it->second = ClassifyNcclKernel(m.Str(s.name[row]));
      name_class = &it->second;
    } else if (!nccl_api_slice.empty() && nccl_api_slice[row] && !has_backend_ranges[process]) {
      source = CommSource::kNcclApi;
      auto [it, inserted] = api_names.try_emplace(s.name[row]);
      if (inserted) it->second = ClassifyNcclApi(m.Str(s.name[row]));
      name_class = &it->second;
    }
    if (name_class == nullptr || !name_class->is_comm) continue;
    CommOp op;
    op.slice = row;
    op.process = process;
    op.type = name_class->type;
    op.source = source;
    op.backend = name_class->backend;
    op.group_size = identities[process].world_size;
    op.rank = m.processes.rank[process];
    op.device_id = m.processes.device_id[process];
    if (source == CommSource::kBackendRange) {
      SetProcessGroup(op, group_calls.GroupAt(process, s.ts[row]), groups, result);
      const TensorInputs inputs = tensor_inputs.Read(s.args[row]);
      FillSizes(op, inputs.known ? inputs.nelems : kCommUnknown, inputs.scalar_type);
      if (op.type == CommOpType::kSend || op.type == CommOpType::kRecv)
        op.peer =
            GlobalRank(op, peers.PeerOf(process, op.type == CommOpType::kSend, s.ts[row]), result);
    } else {
      FillSizes(op, kCommUnknown, name_class->kernel_dtype);
    }
    ops.push_back(std::move(op));
  }
  return result;
}

double AlgorithmBandwidthGBps(const CommOp& op, int64_t duration_ns) {
  if (op.bytes <= 0 || duration_ns <= 0) return -1.0;
  return static_cast<double>(op.bytes) / static_cast<double>(duration_ns);
}

// Appends one argument set to the ArgTable by key id (the keys are interned once per
// annotation run, not per operation).
class ArgSetAppender {
 public:
  explicit ArgSetAppender(ArgTable& args) : args_(args) {}
  void Add(StringId key, ArgType type, uint64_t value) {
    args_.key.push_back(key);
    args_.type.push_back(type);
    args_.value.push_back(value);
  }
  void Int(StringId key, int64_t value) { Add(key, ArgType::kInt, static_cast<uint64_t>(value)); }
  uint32_t Commit() {
    args_.set_begin.push_back(static_cast<uint32_t>(args_.key.size()));
    return static_cast<uint32_t>(args_.sets() - 1);
  }

 private:
  ArgTable& args_;
};

constexpr size_t kAddedArgsAtMost = 9;

void AnnotateCommunication(Model& m) {
  const std::vector<CommOp> ops = ClassifyCommunication(m).ops;
  if (ops.empty()) return;
  StringPool& strings = m.strings;
  const StringId collective_key = strings.Intern("Collective name");
  const StringId dtype_key = strings.Intern("dtype");
  const StringId in_nelems_key = strings.Intern("In msg nelems");
  const StringId out_nelems_key = strings.Intern("Out msg nelems");
  const StringId in_size_key = strings.Intern("In msg size");
  const StringId out_size_key = strings.Intern("Out msg size");
  const StringId group_size_key = strings.Intern("Group size");
  const StringId rank_key = strings.Intern("Rank");
  const StringId algbw_key = strings.Intern("algbw (GB/s)");
  const StringId collective_comm = strings.Intern("collective_comm");
  ArgTable& table = m.args;
  // One reallocation of the argument columns for every new set instead of a doubling chain.
  size_t added = 0;
  for (const CommOp& op : ops) {
    const uint32_t set = m.slices.args[op.slice];
    added += table.set_begin[set + 1] - table.set_begin[set] + kAddedArgsAtMost;
  }
  table.key.reserve(table.key.size() + added);
  table.type.reserve(table.type.size() + added);
  table.value.reserve(table.value.size() + added);
  table.set_begin.reserve(table.set_begin.size() + ops.size());
  ArgSetAppender args(table);
  for (const CommOp& op : ops) {
    const uint32_t old_set = m.slices.args[op.slice];
    const uint32_t begin = table.set_begin[old_set], end = table.set_begin[old_set + 1];
    if (std::find(table.key.begin() + begin, table.key.begin() + end, collective_key) !=
        table.key.begin() + end) {
      continue;  // annotated already
    }
    // The operation's own arguments first (a set is one contiguous run), then Kineto's.
    for (uint32_t i = begin; i < end; ++i) args.Add(table.key[i], table.type[i], table.value[i]);
    args.Add(collective_key, ArgType::kString, strings.Intern(CommOpTypeName(op.type)));
    if (!op.dtype.empty()) args.Add(dtype_key, ArgType::kString, strings.Intern(op.dtype));
    if (op.in_nelems >= 0) args.Int(in_nelems_key, op.in_nelems);
    if (op.out_nelems >= 0) args.Int(out_nelems_key, op.out_nelems);
    if (op.element_bytes > 0 && op.in_nelems >= 0) {
      args.Int(in_size_key, op.in_nelems * op.element_bytes);
      if (op.out_nelems >= 0) args.Int(out_size_key, op.out_nelems * op.element_bytes);
    }
    if (op.group_size > 0) args.Int(group_size_key, op.group_size);
    if (op.rank >= 0) args.Int(rank_key, op.rank);
    const double algbw = AlgorithmBandwidthGBps(op, m.slices.dur(op.slice));
    if (algbw >= 0) args.Add(algbw_key, ArgType::kDouble, std::bit_cast<uint64_t>(algbw));
    m.slices.args[op.slice] = args.Commit();
    if (op.source == CommSource::kBackendRange) m.slices.category[op.slice] = collective_comm;
  }
}

}  // namespace aiprof::model
