"""Markers in the style of torch_npu.npu.mstx: instants and ranges recorded by the runtime
while a collection window is open (msprof_tx=True / `aiprof --msproftx=on`).

Markers go through the runtime's mstx API, so the msprof_tx switch and the
mstx_domain_include / mstx_domain_exclude filters apply. A range started with a `stream`
(a torch.cuda.Stream, or a raw cudaStream_t as int) also marks device time on that stream
when the CUDA source is loaded: CUDA events recorded at start and end, never waited for,
fill msprof_tx's Device Start/End columns and a range on the stream's timeline track.
Marks ignore `stream`.
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


_CU_STREAM_LEGACY = 1  # cuda.h: the legacy default stream's handle


def _stream_handle(stream):
    """cudaStream_t of `stream` as int (0: no device marking)."""
    if stream is None:
        return 0
    handle = getattr(stream, "cuda_stream", stream)
    try:
        handle = int(handle)
    except (TypeError, ValueError):
        return 0
    # The default stream's handle is NULL, which the C API reads as "no stream".
    return handle if handle != 0 else _CU_STREAM_LEGACY


def range_start(message, stream=None, domain=None):
    """Starts a range that may end on any thread; returns its id (0 when not collecting)."""
    native = _native()
    if native is None:
        return 0
    return native.range_start(str(message), domain or "", _stream_handle(stream))


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


class _CallableModule(type(contextlib)):
    """`aiprof.mstx().mark(...)`, the form torch_npu documents beside `mstx.mark(...)`:
    calling the module returns the module."""

    def __call__(self):
        return self


import sys  # noqa: E402

sys.modules[__name__].__class__ = _CallableModule
