"""Markers in the style of torch_npu.npu.mstx: instants and ranges recorded by the runtime
while a collection window is open (msprof_tx=True / `aiprof --msproftx=on`).

Markers go through the runtime's mstx API, so the msprof_tx switch and the
mstx_domain_include / mstx_domain_exclude filters apply. `stream` is accepted for API
compatibility; device-side marking needs the CUDA source and is ignored on CPU-only
machines.
"""

import contextlib
import functools


def _native():
    from . import _native as native

    try:
        return native.runtime()
    except (RuntimeError, ImportError):
        return None


def mark(message, stream=None, domain=None):
    """An instant marker."""
    native = _native()
    if native is not None:
        native.mark(str(message), domain or "")


def range_start(message, stream=None, domain=None):
    """Starts a range that may end on any thread; returns its id (0 when not collecting)."""
    native = _native()
    return native.range_start(str(message), domain or "") if native is not None else 0


def range_end(range_id, domain=None):
    native = _native()
    if native is not None:
        native.range_end(int(range_id), domain or "")


@contextlib.contextmanager
def _range(message, stream=None, domain=None):
    range_id = range_start(message, stream, domain)
    try:
        yield range_id
    finally:
        range_end(range_id, domain)


def mstx_range(message, stream=None, domain=None):
    """Decorator or context manager: the wrapped call is one range."""
    if callable(message):
        function = message

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with _range(function.__qualname__):
                return function(*args, **kwargs)

        return wrapper
    return _RangeContext(message, stream, domain)


class _RangeContext:
    def __init__(self, message, stream, domain):
        self._message, self._stream, self._domain = message, stream, domain
        self._id = 0

    def __enter__(self):
        self._id = range_start(self._message, self._stream, self._domain)
        return self._id

    def __exit__(self, *exc):
        range_end(self._id, self._domain)
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with _RangeContext(self._message, self._stream, self._domain):
                return function(*args, **kwargs)

        return wrapper
