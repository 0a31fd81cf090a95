"""The default process group's identity (rank, world size, backend) as the window's
"distributed" metadata, so exports know each rank's id even when its environment has no
RANK/WORLD_SIZE (ranks started by torch.multiprocessing.spawn)."""

import functools
import json
import sys


def _identity():
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_initialized():
        return None
    return {"backend": str(dist.get_backend()), "rank": dist.get_rank(),
            "world_size": dist.get_world_size()}


def record_process_group(native):
    identity = _identity()
    if identity is not None:
        native.add_metadata("distributed", json.dumps(identity))


def watch_process_group(native):
    """Records the identity now if the group exists, and again after every
    init_process_group (which the job may call after profiling started)."""
    if "torch" not in sys.modules:  # never import torch on the job's behalf
        return
    try:
        import torch.distributed as dist
    except ImportError:
        return
    if not dist.is_available():
        return
    record_process_group(native)
    original = dist.init_process_group
    if getattr(original, "_aiprof_watched", False):
        return

    @functools.wraps(original)
    def init_process_group(*args, **kwargs):
        result = original(*args, **kwargs)
        try:
            record_process_group(native)
        except Exception:  # the job's own call must never fail because of the profiler
            pass
        return result

    init_process_group._aiprof_watched = True
    dist.init_process_group = init_process_group
