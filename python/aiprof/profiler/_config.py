"""Activities, levels, export types and the experimental config, named as in
torch_npu.profiler."""

import enum
import warnings


class ProfilerActivity(enum.Enum):
    CPU = "CPU"
    CUDA = "CUDA"
    NPU = "NPU"  # accepted for torch_npu scripts; means the accelerator (CUDA here)


class ExportType:
    Text = "text"
    Db = "db"


class ProfilerLevel:
    Level_none = "Level_none"
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"


class AiCMetrics:
    AiCoreNone = "AiCoreNone"
    PipeUtilization = "PipeUtilization"
    ArithmeticUtilization = "ArithmeticUtilization"
    Memory = "Memory"
    MemoryL0 = "MemoryL0"
    MemoryUB = "MemoryUB"
    ResourceConflictRatio = "ResourceConflictRatio"
    L2Cache = "L2Cache"
    MemoryAccess = "MemoryAccess"


class HostSystem:
    CPU = "cpu"
    MEM = "mem"
    DISK = "disk"
    NETWORK = "network"
    OSRT = "osrt"


# msprof task_time levels behind each profiler level.
_TASK_TIME = {
    ProfilerLevel.Level_none: "off",
    ProfilerLevel.Level0: "l0",
    ProfilerLevel.Level1: "l1",
    ProfilerLevel.Level2: "l2",
}


def _export_types(export_type):
    """The export types asked for, as torch_npu reads them: ExportType.Text and/or
    ExportType.Db (a value or a list, names in any case); an invalid value is replaced by
    Text with a warning, and none at all means Text."""
    given = export_type if isinstance(export_type, (list, tuple, set)) else [export_type]
    chosen = []
    for item in given:
        if item is None:
            continue
        value = item.lower() if isinstance(item, str) else item
        if value not in (ExportType.Text, ExportType.Db):
            warnings.warn("aiprof: export_type %r is neither ExportType.Text nor ExportType.Db; "
                          "exporting as ExportType.Text" % (item,), stacklevel=3)
            value = ExportType.Text
        if value not in chosen:
            chosen.append(value)
    return chosen or [ExportType.Text]


class _ExperimentalConfig:
    def __init__(
        self,
        profiler_level=ProfilerLevel.Level0,
        aic_metrics=AiCMetrics.AiCoreNone,
        l2_cache=False,
        msprof_tx=False,
        mstx=False,
        data_simplification=True,
        record_op_args=False,
        op_attr=False,
        gc_detect_threshold=None,
        export_type=ExportType.Text,
        host_sys=None,
        mstx_domain_include=None,
        mstx_domain_exclude=None,
        sys_io=False,
        sys_interconnection=False,
    ):
        if profiler_level not in _TASK_TIME:
            raise ValueError(
                "profiler_level must be one of %s, got %r" % (sorted(_TASK_TIME), profiler_level)
            )
        if gc_detect_threshold is not None and (
            not isinstance(gc_detect_threshold, (int, float)) or gc_detect_threshold < 0
        ):
            raise ValueError("gc_detect_threshold must be None or a number >= 0 (ms)")
        export_types = _export_types(export_type)
        self.profiler_level = profiler_level
        self.aic_metrics = aic_metrics
        self.l2_cache = bool(l2_cache)
        self.msprof_tx = bool(msprof_tx or mstx)
        self.data_simplification = bool(data_simplification)
        self.record_op_args = bool(record_op_args)
        self.op_attr = bool(op_attr)
        self.gc_detect_threshold = gc_detect_threshold
        self.export_type = export_types
        self.host_sys = list(host_sys or [])
        self.mstx_domain_include = list(mstx_domain_include or [])
        self.mstx_domain_exclude = list(mstx_domain_exclude or [])
        self.sys_io = bool(sys_io)
        self.sys_interconnection = bool(sys_interconnection)

    def task_time(self):
        return _TASK_TIME[self.profiler_level]

    def to_dict(self):
        return {
            "_profiler_level": self.profiler_level,
            "_aic_metrics": self.aic_metrics,
            "_l2_cache": self.l2_cache,
            "_msprof_tx": self.msprof_tx,
            "_op_attr": self.op_attr,
            "_data_simplification": self.data_simplification,
            "_record_op_args": self.record_op_args,
            "_gc_detect_threshold": self.gc_detect_threshold,
            "_export_type": self.export_type,
            "_host_sys": self.host_sys,
            "_mstx_domain_include": self.mstx_domain_include,
            "_mstx_domain_exclude": self.mstx_domain_exclude,
            "_sys_io": self.sys_io,
            "_sys_interconnection": self.sys_interconnection,
        }


def _cuda_source_in_process():
    """True when libaiprof_cuda.so is loaded (a launch under `aiprof` injects it through
    CUDA_INJECTION64_PATH), the only way GPU activity reaches a window."""
    import ctypes

    try:
        return hasattr(ctypes.CDLL(None), "aiprof_cuda_push_external_id")
    except OSError:
        return False


def gpu_activity_unavailable_reason():
    """Why GPU (CUDA/NPU) activity cannot be collected in this process, or None."""
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "no CUDA device is usable here (torch.cuda.is_available() is False)"
    if not _cuda_source_in_process():
        return ("the CUDA source is not in this process: run the script under the launcher "
                "(`aiprof --task-time=on python3 train.py`), which injects libaiprof_cuda.so")
    return None


def supported_activities():
    """The activities this process can collect: CPU always; CUDA when a CUDA device is
    usable and aiprof's CUDA source is loaded (NPU activity is read as CUDA)."""
    activities = [ProfilerActivity.CPU]
    if gpu_activity_unavailable_reason() is None:
        activities.append(ProfilerActivity.CUDA)
    return activities


def supported_profiler_level():
    return set(_TASK_TIME)


def supported_ai_core_metrics():
    return {value for key, value in vars(AiCMetrics).items() if not key.startswith("_")}


def supported_export_type():
    return {ExportType.Text, ExportType.Db}
