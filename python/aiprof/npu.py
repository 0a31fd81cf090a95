"""The legacy ``torch_npu.npu`` profiling functions of seed 001 (the aclprof API's shape),
named as there so a script changes one import (``torch_npu.npu`` -> ``aiprof.npu``):

    aiprof.npu.prof_init(path); aiprof.npu.prof_start(); ...; aiprof.npu.prof_stop();
    aiprof.npu.prof_finalize()                      # one window around chosen iterations

    with aiprof.npu.profile(path, config=aiprof.npu.ProfileConfig(ACL_PROF_TASK_TIME=True)):
        for epoch in range(10):
            aiprof.npu.iteration_start()            # iterations that
            train_one_step()                        # `aiprof export --iteration-id=3`
            aiprof.npu.iteration_end()              # then selects

Each window is one PROF_* directory under ``path``, exported with ``aiprof export``. PyTorch
operators are recorded when ACL_PROF_TASK_TIME is set or ``use_e2e_profiler=True``. The
configuration by environment (``PROFILING_MODE=true`` with ``PROFILING_OPTIONS``) needs no
code: the runtime reads it at load (docs/dynamic.md).
"""

import contextlib
import json
import os

from . import _native, mstx  # noqa: F401  (torch_npu.npu.mstx -> aiprof.npu.mstx)

__all__ = ["ProfileConfig", "iteration_end", "iteration_start", "mstx", "prof_finalize",
           "prof_init", "prof_start", "prof_stop", "profile"]


class ProfileConfig:
    """torch_npu.npu.profileConfig: which data a window collects. On this CPU/CUDA profiler
    ACL_PROF_TASK_TIME selects the operators (task time) and ACL_PROF_ACL_API the CUDA
    runtime API layer. Iterations are always marked. The AI Core, L2, AI CPU and HCCL switches
    are accepted so torch_npu scripts run, and have no effect: they select NPU data."""

    def __init__(self, ACL_PROF_ACL_API=True, ACL_PROF_TASK_TIME=True, ACL_PROF_AICORE_METRICS=True,
                 ACL_PROF_AICPU=True, ACL_PROF_L2CACHE=False, ACL_PROF_HCCL_TRACE=True,
                 ACL_PROF_TRAINING_TRACE=True, aiCoreMetricsType=0, **aliases):
        # The seed's own sample spells one switch AC_PROF_AICORE_METRICS.
        ACL_PROF_AICORE_METRICS = aliases.pop("AC_PROF_AICORE_METRICS", ACL_PROF_AICORE_METRICS)
        if aliases:
            raise TypeError("ProfileConfig: unknown switches %s" % ", ".join(sorted(aliases)))
        self.acl_api = bool(ACL_PROF_ACL_API)
        self.task_time = bool(ACL_PROF_TASK_TIME)
        self.aicore_metrics = bool(ACL_PROF_AICORE_METRICS)
        self.aicpu = bool(ACL_PROF_AICPU)
        self.l2cache = bool(ACL_PROF_L2CACHE)
        self.hccl_trace = bool(ACL_PROF_HCCL_TRACE)
        self.training_trace = bool(ACL_PROF_TRAINING_TRACE)
        self.ai_core_metrics_type = int(aiCoreMetricsType)

    def options(self, record_operators):
        return {
            "mode": "api",
            "task_time": "on" if self.task_time or record_operators else "off",
            # ACL_PROF_ACL_API: both CUDA APIs ("ascendcl" the runtime API, "runtime_api"
            # the driver API, docs/cli.md); each is on unless set.
            "ascendcl": self.acl_api,
            "runtime_api": self.acl_api,
        }


class _State:
    output = None
    window = None
    iteration = 0
    iteration_open = False


def prof_init(path):
    """Where the windows go (created if missing)."""
    path = os.path.abspath(os.fspath(path))
    os.makedirs(path, exist_ok=True)
    _native.runtime().init(path)
    _State.output = path
    _State.iteration = 0


def prof_start(config=None, record_operators=False):
    """Opens a window (one PROF_* directory) with ``config`` (a ProfileConfig; default:
    everything this machine can collect)."""
    if _State.output is None:
        raise RuntimeError("prof_start(): call prof_init(path) first")
    if _State.window is not None:
        raise RuntimeError("prof_start(): a window is already open; call prof_stop() first")
    native = _native.runtime()
    options = (config or ProfileConfig()).options(record_operators)
    if options["task_time"] != "off":
        import torch  # noqa: F401  (the plugin needs libtorch in the process)

        _native.attach_torch()
    window = native.Window(native.TYPE_TASK_TIME if options["task_time"] != "off" else 0)
    window.set_option("output", json.dumps(_State.output))
    for key, value in options.items():
        window.set_option(key, json.dumps(value))
    window.start()
    _State.window = window


def prof_stop():
    """Closes the window prof_start() opened; returns its PROF_* directory."""
    if _State.window is None:
        raise RuntimeError("prof_stop(): no window is open; call prof_start() first")
    _close_iteration()
    window, _State.window = _State.window, None
    window.stop()
    return _native.runtime().current_dir()


def prof_finalize():
    """Ends profiling for this process (a window still open is closed first)."""
    if _State.window is not None:
        prof_stop()
    _State.output = None


def iteration_start():
    """Begins the next iteration (numbered from 1 in each window's step trace, as msprof
    numbers iterations, so ``--iteration-id=3`` selects the third)."""
    _close_iteration()
    _State.iteration += 1
    _native.runtime().step_begin(_State.iteration)
    _State.iteration_open = True


def iteration_end():
    """Ends the iteration iteration_start() began."""
    _close_iteration()


def _close_iteration():
    if _State.iteration_open:
        _native.runtime().step_end(_State.iteration)
        _State.iteration_open = False


@contextlib.contextmanager
def profile(profiler_result_path="./", use_e2e_profiler=False, config=None):
    """``with aiprof.npu.profile(path[, use_e2e_profiler=True][, config=ProfileConfig(...)])``:
    one window around the block; ``use_e2e_profiler`` also records the PyTorch operators
    when the config leaves task time off. Yields the PROF_* directory's parent."""
    prof_init(profiler_result_path)
    prof_start(config, record_operators=use_e2e_profiler)
    try:
        yield _State.output
    finally:
        prof_finalize()
