"""On-demand collection of an unchanged PyTorch script.

Three environment workflows need the job's operators in windows opened later, from outside
the script:

- attach mode: ``AIPROF_MODE=dynamic`` (alias ``PROFILING_MODE=dynamic``, seed 004), then
  ``aiprof --dynamic=on --pid=<pid>`` and ``start``/``stop``;
- dynamic_profile by environment: ``AIPROF_CONFIG_PATH=<dir>`` (alias
  ``PROF_CONFIG_PATH``), then edits of ``<dir>/profiler_config.json``; as in torch_npu,
  steps are counted at every ``Optimizer.step()``;
- dynamic_profile in code: ``dp.init(dir)`` / ``dp.start(config)``.

In all of them the torch plugin is loaded as soon as torch is imported (or right away if it
already is); it adds its RecordFunction callback only while a window is open. The one
requirement is that the runtime is in the process: ``LD_PRELOAD=libaiprof.so``, a launch
under ``aiprof``, or ``import aiprof`` (which loads it when one of the variables is set).
"""

import functools
import importlib.abc
import importlib.util
import json
import os
import sys


def config_path():
    """The dynamic_profile directory named by the environment, or None."""
    for name in ("AIPROF_CONFIG_PATH", "PROF_CONFIG_PATH"):
        if os.environ.get(name):
            return os.environ[name]
    return None


def dynamic_mode_requested():
    """True when the environment asks for windows opened on command or by config edits."""
    if "dynamic" in (os.environ.get("AIPROF_MODE"), os.environ.get("PROFILING_MODE")):
        return True
    try:
        options = json.loads(os.environ.get("AIPROF_OPTIONS") or "{}")
    except ValueError:
        options = {}
    if isinstance(options, dict) and options.get("mode") == "dynamic":
        return True
    return config_path() is not None


class _TorchImportWatcher(importlib.abc.MetaPathFinder):
    """Runs the callbacks right after torch/__init__.py has run."""

    def __init__(self):
        self.callbacks = []

    def find_spec(self, fullname, path, target=None):
        if fullname != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("torch")
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module
        callbacks = self.callbacks

        def exec_then_run(module):
            exec_module(module)
            for callback in callbacks:
                _run_reporting_errors(callback)

        spec.loader.exec_module = exec_then_run
        return spec


_watcher = None


def _run_reporting_errors(callback):
    try:
        callback()
    except Exception as error:  # never break the job: report and run unprofiled
        sys.stderr.write("aiprof: PyTorch operators are not recorded: %s\n" % error)


def when_torch_imported(callback):
    """Calls ``callback`` now if torch is imported, else right after ``import torch``."""
    global _watcher
    if "torch" in sys.modules:
        _run_reporting_errors(callback)
        return
    if _watcher is None or _watcher not in sys.meta_path:
        _watcher = _TorchImportWatcher()
        sys.meta_path.insert(0, _watcher)
    _watcher.callbacks.append(callback)


def _attach_torch_plugin():
    from . import _native

    _native.attach_torch()


def install_optimizer_step_hook():
    """Counts a dynamic_profile step at the end of every ``Optimizer.step()``, as torch_npu
    does for PROF_CONFIG_PATH. A script that calls ``dp.step()`` itself turns it off."""
    import importlib

    import torch

    # torch.optim's __init__ deletes its `optimizer` attribute; the module is in sys.modules.
    optimizer_module = importlib.import_module("torch.optim.optimizer")
    if getattr(optimizer_module, "_aiprof_step_hook_installed", False):
        return
    from . import dynamic_profile

    register = getattr(optimizer_module, "register_optimizer_step_post_hook", None)
    if register is not None:  # torch >= 2.0: a global hook for every optimizer
        register(lambda optimizer, args, kwargs: dynamic_profile._optimizer_stepped())
    else:  # torch 1.x: every optimizer wraps its class's step in _hook_for_profile
        optimizer_class = torch.optim.Optimizer
        hook_for_profile = optimizer_class._hook_for_profile

        def hook_for_profile_and_count_steps(self):
            hook_for_profile(self)
            step = self.__class__.step
            if getattr(step, "_aiprof_counts_steps", False):
                return

            @functools.wraps(step)
            def step_then_count(*args, **kwargs):
                result = step(*args, **kwargs)
                dynamic_profile._optimizer_stepped()
                return result

            step_then_count._aiprof_counts_steps = True
            self.__class__.step = step_then_count

        optimizer_class._hook_for_profile = hook_for_profile_and_count_steps
    optimizer_module._aiprof_step_hook_installed = True


def prepare_torch_for_windows():
    """Loads the torch plugin at (or after) ``import torch``; with a dynamic_profile
    directory in the environment, also counts steps at ``Optimizer.step()``."""
    when_torch_imported(_attach_torch_plugin)
    if config_path() is not None:
        when_torch_imported(install_optimizer_step_hook)


def setup_from_environment():
    """Called by ``import aiprof``: loads the runtime (whose load starts the control channel
    and dynamic_profile from the environment) when a dynamic workflow is requested."""
    if not dynamic_mode_requested():
        return
    try:
        from . import _native

        _native.runtime()
    except Exception as error:  # never break the job
        sys.stderr.write("aiprof: dynamic collection unavailable: %s\n" % error)
        return
    prepare_torch_for_windows()
