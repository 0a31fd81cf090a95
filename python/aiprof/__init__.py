"""aiprof: a native profiler for AI training and inference jobs.

`aiprof.profiler` mirrors `torch_npu.profiler` / `torch.profiler` so a training script
changes one import; `aiprof.npu` holds torch_npu.npu's profiling functions (prof_init,
profile, ProfileConfig, mstx); `aiprof.mstx` marks ranges and instants.
"""

__version__ = "0.1.0"

from . import _on_demand, mstx  # noqa: F401  (light: no torch import)

# AIPROF_MODE=dynamic / PROFILING_MODE=dynamic / AIPROF_CONFIG_PATH / PROF_CONFIG_PATH:
# load the runtime now so the job can be profiled on demand (docs/dynamic.md).
_on_demand.setup_from_environment()


# Submodules loaded on first use, so `import aiprof` stays light (aiprof.profiler imports
# torch) while `aiprof.npu.prof_init(...)`, `aiprof.npu.mstx.mark(...)` and
# `aiprof.dynamic_profile.init(...)` work after the package import alone, as torch_npu's
# names do after `import torch_npu`.
_LAZY_SUBMODULES = ("profiler", "npu", "dynamic_profile")


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'aiprof' has no attribute %r" % name)


def __dir__():
    return sorted(set(globals()) | set(_LAZY_SUBMODULES))
