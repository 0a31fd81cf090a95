"""dynamic_profile: start collection by editing a config file while training runs.

The counterpart of ``torch_npu.profiler.dynamic_profile``::

    from aiprof import dynamic_profile as dp
    dp.init("/shared/prof_cfg")          # writes profiler_config.json there and watches it
    for step in range(steps):
        if step == 5:
            dp.start("/shared/start/profiler_config.json")   # optional: collect right away
        train_one_step()
        dp.step()

Editing ``profiler_config.json`` arms one collection of ``active`` steps starting at the
next step (or at ``start_step``). Invalid edits are logged under ``<dir>/log`` and ignored.
The work is done by libaiprof.so (include/aiprof/dynamic_profile.h), reached with ctypes.
``init`` and ``start`` also load the torch plugin (at ``import torch`` if torch is not
imported yet), so windows hold the job's operators, not only the ``ProfilerStep#N`` marks.

Without code changes: ``AIPROF_CONFIG_PATH=<dir>`` (alias ``PROF_CONFIG_PATH``) with the
runtime in the process (``import aiprof``, ``LD_PRELOAD=libaiprof.so`` or a launch under
``aiprof``) initialises dynamic_profile at load and counts a step at every
``Optimizer.step()``, as torch_npu does. A script that calls ``step()`` itself is counted by
its own calls only.
"""

import ctypes
import os

__all__ = ["init", "step", "start"]

_SUCCESS = 0
_ERRORS = {
    1: "invalid argument",
    2: "not initialised: call init() first",
    5: "cannot create the config directory or its log/",
}
_library = None
_explicit_steps = False


def _candidate_paths():
    if os.environ.get("AIPROF_RUNTIME_LIB"):
        yield os.environ["AIPROF_RUNTIME_LIB"]
    package_dir = os.path.dirname(os.path.abspath(__file__))
    dirs = []
    if os.environ.get("AIPROF_LIB_DIR"):
        dirs.append(os.environ["AIPROF_LIB_DIR"])
    dirs.append(os.path.join(package_dir, "lib"))  # installed package
    dirs.append(os.path.join(package_dir, "..", "..", "lib"))  # build/python/aiprof -> build/lib
    dirs.append(os.path.join(package_dir, "..", "..", "build", "lib"))  # source tree
    for directory in dirs:
        yield os.path.normpath(os.path.join(directory, "libaiprof.so"))


def _runtime():
    """libaiprof.so: the copy already in the process (launcher preload) or the first found."""
    global _library
    if _library is not None:
        return _library
    try:  # one copy of the runtime: the one the extension uses (preloaded or found)
        from . import _native

        _native.runtime()
    except (ImportError, RuntimeError):
        pass
    library = ctypes.CDLL(None)
    if not hasattr(library, "aiprofDynamicInit"):
        tried = []
        library = None
        for path in _candidate_paths():
            tried.append(path)
            if os.path.exists(path):
                library = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                break
        if library is None:
            raise RuntimeError(
                "libaiprof.so not found (tried %s); build it (make) or set AIPROF_RUNTIME_LIB"
                % ", ".join(tried)
            )
    library.aiprofDynamicInit.argtypes = [ctypes.c_char_p]
    library.aiprofDynamicInit.restype = ctypes.c_int
    library.aiprofDynamicStart.argtypes = [ctypes.c_char_p]
    library.aiprofDynamicStart.restype = ctypes.c_int
    library.aiprofDynamicStep.argtypes = []
    library.aiprofDynamicStep.restype = None
    _library = library
    return library


def init(path):
    """Creates ``path`` (and ``path/log``), writes the template profiler_config.json unless
    one exists, and starts watching it."""
    code = _runtime().aiprofDynamicInit(os.fsencode(os.fspath(path)))
    if code != _SUCCESS:
        raise RuntimeError("dynamic_profile.init(%r): %s" % (path, _ERRORS.get(code, "error %d" % code)))
    _record_torch_operators()


def _record_torch_operators():
    from . import _on_demand

    _on_demand.when_torch_imported(_on_demand._attach_torch_plugin)


def step():
    """Marks a step boundary: call once at the end of every training step."""
    global _explicit_steps
    _explicit_steps = True
    _runtime().aiprofDynamicStep()


def _optimizer_stepped():
    """The Optimizer.step() hook of the environment workflow (PROF_CONFIG_PATH)."""
    if not _explicit_steps:
        _runtime().aiprofDynamicStep()


def start(config_file):
    """Collects right away, for ``active`` steps, with the settings of ``config_file`` (or of
    the watched profiler_config.json if that file is unusable). Returns False when nothing
    started (a collection already runs, or no valid config); the reason is in the log."""
    _record_torch_operators()  # before the window opens, so it starts the plugin too
    return _runtime().aiprofDynamicStart(os.fsencode(os.fspath(config_file))) == _SUCCESS
