"""torch_npu.profiler-shaped profiling of PyTorch programs with aiprof.

    import aiprof
    with aiprof.profiler.profile(
            activities=[aiprof.profiler.ProfilerActivity.CPU],
            schedule=aiprof.profiler.schedule(wait=1, warmup=1, active=2, repeat=1),
            on_trace_ready=aiprof.profiler.tensorboard_trace_handler("./result")) as prof:
        for batch in loader:
            train_step(batch)
            prof.step()
"""

from ._config import (  # noqa: F401
    AiCMetrics,
    ExportType,
    HostSystem,
    ProfilerActivity,
    ProfilerLevel,
    _ExperimentalConfig,
    supported_activities,
    supported_ai_core_metrics,
    supported_export_type,
    supported_profiler_level,
)
from ._handler import tensorboard_trace_handler  # noqa: F401
from ._profile import _KinetoProfile, profile  # noqa: F401
from ._schedule import ProfilerAction, schedule  # noqa: F401
from .. import dynamic_profile  # noqa: F401,E402  (torch_npu.profiler.dynamic_profile)

from . import profiler  # noqa: F401,E402  (profiler.analyse: offline parsing)

__all__ = [
    "AiCMetrics", "ExportType", "HostSystem", "ProfilerAction", "ProfilerActivity",
    "ProfilerLevel", "_ExperimentalConfig", "_KinetoProfile", "profile", "schedule",
    "supported_activities", "supported_ai_core_metrics", "supported_export_type",
    "supported_profiler_level", "tensorboard_trace_handler", "dynamic_profile", "profiler",
    "record_function", "DeviceType", "kineto_available",
]


def __getattr__(name):
    """torch.profiler's other public names, so a script written for it runs with this
    import (record_function ranges are recorded by the torch plugin like any operator);
    taken from torch on first use, so offline parsing works without torch."""
    if name == "record_function":
        from torch.autograd.profiler import record_function

        return record_function
    if name == "DeviceType":
        from torch.autograd import DeviceType

        return DeviceType
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def kineto_available():
    """torch.profiler.kineto_available(): whether the profiler behind this module can record
    operators, i.e. aiprof's torch plugin (which needs no Kineto in torch) is found."""
    import os

    from .. import _native

    return bool(os.environ.get("AIPROF_TORCH_PLUGIN") or
                _native.find_library("libaiprof_torch.so"))
