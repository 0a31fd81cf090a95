"""What the Python side records while a window is open: nn.Module forward ranges
(with_modules) and garbage collections longer than a threshold (gc_detect_threshold)."""

import gc
import time


class ModuleHooks:
    def __init__(self, native):
        import torch

        self._native = native
        self._names = {}
        self._counts = {}
        hooks = torch.nn.modules.module
        self._handles = [hooks.register_module_forward_pre_hook(self._pre),
                         hooks.register_module_forward_hook(self._post)]

    def _name(self, module):
        key = id(module)
        name = self._names.get(key)
        if name is None:
            cls = type(module).__name__
            index = self._counts.get(cls, 0)
            self._counts[cls] = index + 1
            name = "nn.Module: %s_%d" % (cls, index)
            self._names[key] = name
        return name

    def _pre(self, module, _inputs):
        self._native.module_begin(self._name(module))

    def _post(self, _module, _inputs, _outputs):
        self._native.module_end()

    def remove(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []


class GcDetector:
    def __init__(self, native, threshold_ms):
        self._native = native
        self._threshold_ns = int(threshold_ms * 1e6)
        self._start_ticks = 0
        self._start_ns = 0
        gc.callbacks.append(self._callback)

    def _callback(self, phase, info):
        if phase == "start":
            self._start_ticks = self._native.now()
            self._start_ns = time.perf_counter_ns()
        elif phase == "stop" and self._start_ns:
            if time.perf_counter_ns() - self._start_ns >= self._threshold_ns:
                self._native.emit_gc(self._start_ticks, self._native.now(),
                                     info.get("generation", 0), info.get("collected", 0),
                                     info.get("uncollectable", 0))
            self._start_ns = 0

    def remove(self):
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)
