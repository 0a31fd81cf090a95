"""aiprof: a native profiler for AI training and inference jobs.

`aiprof.profiler` mirrors `torch_npu.profiler` / `torch.profiler` so a training script
changes one import; `aiprof.mstx` marks ranges and instants.
"""

__version__ = "0.1.0"

from . import mstx  # noqa: F401  (light: no torch import)


def __getattr__(name):
    # aiprof.profiler imports torch; load it only when used.
    if name == "profiler":
        import importlib

        return importlib.import_module(".profiler", __name__)
    raise AttributeError(name)
