"""Finds and loads the native parts: the _aiprof extension, the runtime libaiprof.so and
the torch plugin libaiprof_torch.so.

Search order for the shared libraries: $AIPROF_LIB_DIR, the package's own lib/ (pip
install), then the build tree (build/python/aiprof -> build/lib). A runtime preloaded by
the `aiprof` launcher is used as is.
"""

import os
import shutil

from . import _aiprof  # noqa: F401  (re-exported)

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_torch_attached = False


def library_dirs():
    dirs = []
    if os.environ.get("AIPROF_LIB_DIR"):
        dirs.append(os.environ["AIPROF_LIB_DIR"])
    dirs.append(os.path.join(_PACKAGE_DIR, "lib"))
    dirs.append(os.path.normpath(os.path.join(_PACKAGE_DIR, "..", "..", "lib")))
    return dirs


def find_library(name):
    for directory in library_dirs():
        path = os.path.join(directory, name)
        if os.path.exists(path):
            return path
    return None


def find_cli():
    """The `aiprof` command (for `aiprof export`), or None."""
    candidates = []
    if os.environ.get("AIPROF_CLI"):
        candidates.append(os.environ["AIPROF_CLI"])
    for directory in library_dirs():
        candidates.append(os.path.join(directory, "..", "bin", "aiprof"))
        candidates.append(os.path.join(directory, "aiprof"))
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    return shutil.which("aiprof")


def runtime():
    """The loaded extension with the runtime attached (loads it on first use)."""
    if not _aiprof.runtime_loaded():
        explicit = os.environ.get("AIPROF_RUNTIME_LIB")
        if explicit:
            _aiprof.load_runtime(explicit)
        else:
            try:
                _aiprof.load_runtime("")  # preloaded by the launcher
            except RuntimeError:
                path = find_library("libaiprof.so")
                if path is None:
                    raise RuntimeError(
                        "libaiprof.so not found in %s; build it (make) or set "
                        "AIPROF_RUNTIME_LIB" % ", ".join(library_dirs())
                    )
                _aiprof.load_runtime(path)
    return _aiprof


def attach_torch():
    """Loads libaiprof_torch.so once; its operators are recorded in every window."""
    global _torch_attached
    if _torch_attached:
        return
    native = runtime()
    path = os.environ.get("AIPROF_TORCH_PLUGIN") or find_library("libaiprof_torch.so")
    if path is None:
        raise RuntimeError(
            "libaiprof_torch.so not found in %s (built only where libtorch is installed)"
            % ", ".join(library_dirs())
        )
    native.load_plugin(path, "aiprof_torch_attach")
    _torch_attached = True
