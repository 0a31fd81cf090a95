"""aiprof launch hook. The aiprof runtime, preloaded by `aiprof --task-time=on ...` (or by
LD_PRELOAD in dynamic mode: AIPROF_MODE/PROFILING_MODE=dynamic, AIPROF_CONFIG_PATH /
PROF_CONFIG_PATH), puts this directory first on PYTHONPATH; Python imports this module at
startup. Once the program imports torch, libaiprof_torch.so is loaded into the preloaded
runtime so operators are recorded without changing the script (plus nn.Module ranges and
the Python call stack when the launcher's options ask for them); with a dynamic_profile
directory in the environment, every Optimizer.step() also counts a step. The plugin
records only while a window is open. The interpreter's own sitecustomize, if any, still
runs (imported after this one)."""

import importlib
import os
import sys

_HOOK_DIR = os.path.dirname(os.path.abspath(__file__))


def _chain_next_sitecustomize():
    saved_path = list(sys.path)
    ours = sys.modules.pop("sitecustomize", None)
    try:
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HOOK_DIR]
        importlib.import_module("sitecustomize")
    except ImportError:
        pass
    finally:
        sys.path[:] = saved_path
        if ours is not None:
            sys.modules["sitecustomize"] = ours


def _attach():
    """Runs right after `import torch` (errors are reported by _on_demand, never raised)."""
    import json

    options = json.loads(os.environ.get("AIPROF_OPTIONS", "{}"))
    from aiprof import _native, _on_demand

    native = _native.runtime()
    _native.attach_torch()
    if _on_demand.config_path() is not None:
        _on_demand.install_optimizer_step_hook()
    from aiprof.profiler._distributed import watch_process_group

    watch_process_group(native)
    if options.get("with_modules"):
        from aiprof.profiler._python_hooks import ModuleHooks

        ModuleHooks(native)
    if options.get("with_stack"):
        native.set_python_tracer(True)


def _watch_for_torch():
    package_dir = os.path.dirname(_HOOK_DIR)
    if package_dir not in sys.path:
        sys.path.append(package_dir)
    try:
        from aiprof import _on_demand
    except Exception as error:  # never break the job: report and run unprofiled
        sys.stderr.write("aiprof: PyTorch operators are not recorded: %s\n" % error)
        return
    _on_demand.when_torch_imported(_attach)


_watch_for_torch()
_chain_next_sitecustomize()
