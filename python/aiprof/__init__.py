"""aiprof: a native profiler for AI training and inference jobs.

`aiprof.profiler` mirrors `torch_npu.profiler` / `torch.profiler` so a training script
changes one import; `aiprof.mstx` marks ranges and instants.
"""

__version__ = "0.1.0"

from . import _on_demand, mstx  # noqa: F401  (light: no torch import)

# AIPROF_MODE=dynamic / PROFILING_MODE=dynamic / AIPROF_CONFIG_PATH / PROF_CONFIG_PATH:
# load the runtime now so the job can be profiled on demand (docs/dynamic.md).
_on_demand.setup_from_environment()


def __getattr__(name):
    # aiprof.profiler imports torch; load it only when used.
    if name == "profiler":
        import importlib

        return importlib.import_module(".profiler", __name__)
    raise AttributeError(name)
