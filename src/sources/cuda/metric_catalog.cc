#include "sources/cuda/metric_catalog.h"

#include <algorithm>
#include <cctype>

namespace aiprof::cuda {
namespace {

constexpr MetricColumn kPipe[] = {
    {"sm_throughput(%)", "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"tensor_pipe_ratio(%)",
     "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"},
    {"fma_pipe_ratio(%)", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"},
    {"alu_pipe_ratio(%)", "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"},
    {"fp64_pipe_ratio(%)", "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active"},
    {"lsu_pipe_ratio(%)", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"},
    {"achieved_occupancy(%)", "sm__warps_active.avg.pct_of_peak_sustained_active"},
};
constexpr MetricColumn kArithmetic[] = {
    {"fp32_fadd_inst", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"},
    {"fp32_fmul_inst", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"},
    {"fp32_ffma_inst", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"},
    {"fp16_hfma_inst", "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"},
    {"fp64_dfma_inst", "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"},
    {"tensor_pipe_ratio(%)",
     "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"},
};
constexpr MetricColumn kMemory[] = {
    {"dram_throughput(%)", "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"main_mem_read_bw(GB/s)", "dram__bytes_read.sum.per_second"},
    {"main_mem_write_bw(GB/s)", "dram__bytes_write.sum.per_second"},
    {"l2_read_bw(GB/s)", "lts__t_sectors_op_read.sum.per_second"},
    {"l2_write_bw(GB/s)", "lts__t_sectors_op_write.sum.per_second"},
    {"l1_bw(GB/s)", "l1tex__t_bytes.sum.per_second"},
};
constexpr MetricColumn kMemoryL0[] = {
    {"shared_load_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"},
    {"shared_store_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"},
    {"register_spill_bytes", "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum"},
};
constexpr MetricColumn kMemoryL1[] = {
    {"l1_hit_rate(%)", "l1tex__t_sector_hit_rate.pct"},
    {"l1_bw(GB/s)", "l1tex__t_bytes.sum.per_second"},
    {"l1_throughput(%)", "l1tex__throughput.avg.pct_of_peak_sustained_active"},
};
constexpr MetricColumn kMemoryUb[] = {
    {"shared_read_bw(GB/s)", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum.per_second"},
    {"shared_write_bw(GB/s)", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum.per_second"},
};
constexpr MetricColumn kConflict[] = {
    {"shared_load_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"},
    {"shared_store_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"},
    {"stall_mio_throttle_ratio", "smsp__average_warp_latency_issue_stalled_mio_throttle.ratio"},
};
constexpr MetricColumn kL2[] = {
    {"l2_hit_rate(%)", "lts__t_sector_hit_rate.pct"},
    {"l2_read_hit_rate(%)", "lts__t_sector_op_read_hit_rate.pct"},
    {"l2_write_hit_rate(%)", "lts__t_sector_op_write_hit_rate.pct"},
};
constexpr MetricColumn kAccess[] = {
    {"read_main_memory_datas(KB)", "dram__bytes_read.sum"},
    {"write_main_memory_datas(KB)", "dram__bytes_write.sum"},
    {"l2_datas(KB)", "lts__t_bytes.sum"},
};

constexpr MetricGroup kGroups[] = {
    {"PipeUtilization", "SM, tensor, FMA, ALU, FP64 and LSU pipe utilization", kPipe},
    {"ArithmeticUtilization", "instructions executed per arithmetic type", kArithmetic},
    {"Memory", "DRAM, L2 and L1 bandwidth", kMemory},
    {"MemoryL0", "shared memory traffic and register spills", kMemoryL0},
    {"MemoryL1", "L1/TEX hit rate and bandwidth", kMemoryL1},
    {"MemoryUB", "shared memory (the unified-buffer counterpart) bandwidth", kMemoryUb},
    {"ResourceConflictRatio", "shared memory bank conflicts and MIO stalls", kConflict},
    {"L2Cache", "L2 hit rates", kL2},
    {"MemoryAccess", "bytes moved to and from DRAM and L2", kAccess},
};

bool EqualNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

const MetricGroup* FindMetricGroup(std::string_view name) {
  for (const MetricGroup& group : kGroups) {
    if (EqualNoCase(group.msprof_name, name)) return &group;
  }
  return nullptr;
}

const MetricGroup& L2MetricGroup() {
  return kGroups[7];
}

std::string MetricGroupNames() {
  std::string names;
  for (const MetricGroup& group : kGroups) {
    if (!names.empty()) names += ", ";
    names += group.msprof_name;
  }
  return names;
}

}  // namespace aiprof::cuda
