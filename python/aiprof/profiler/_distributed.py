"""The job's torch.distributed identity (backend, rank, world size and process groups) as the
window's "distributed" metadata, so exports know each rank's id and groups even when its
environment has no RANK/WORLD_SIZE (ranks started by torch.multiprocessing.spawn). The
parser reads it with model::ReadRankIdentity (src/model/rank_identity.h); the Kineto
trace's distributedInfo and the communication analysis take it from there.

The backends' collective ranges do not say which process group they ran in (torch 1.13's
gloo ranges, for one), so each torch.distributed collective and point-to-point call on a
group other than the default one is recorded as a range naming the group (torch's pg
name); the operation's backend range starts inside it (model/process_group_call.h). Calls
on the default group record nothing: they run in the world group."""

import functools
import inspect
import json
import sys

# The torch.distributed functions that take a `group` and issue one operation on it.
_GROUP_CALLS = ("all_reduce", "all_gather", "all_gather_into_tensor", "_all_gather_base",
                "reduce_scatter", "reduce_scatter_tensor", "_reduce_scatter_base", "broadcast",
                "reduce", "all_to_all", "all_to_all_single", "gather", "scatter", "barrier",
                "send", "recv", "isend", "irecv")

# The native module of the latest profile that watches the groups: the wrappers installed
# once on torch.distributed record into it.
_watching = {"native": None}


def _group_tables(c10d):
    """(pg -> name, pg -> {global rank: group rank}, pg -> backend) across torch versions:
    torch >= 2.0 keeps them in c10d._world, 1.x in module globals."""
    world = getattr(c10d, "_world", None)
    if world is not None and hasattr(world, "pg_names"):
        names, ranks, backends = world.pg_names, world.pg_group_ranks, world.pg_map
    else:
        names = getattr(c10d, "_pg_names", {})
        ranks = getattr(c10d, "_pg_group_ranks", {})
        backends = getattr(c10d, "_pg_map", {})
    return names, ranks, backends


def _process_groups(dist):
    try:
        import torch.distributed.distributed_c10d as c10d
    except ImportError:
        return []
    names, group_ranks, backends = _group_tables(c10d)
    groups = []
    for group, name in list(names.items()):
        ranks = group_ranks.get(group, {})
        backend = backends.get(group)
        backend = backend[0] if isinstance(backend, tuple) and backend else backend
        own_rank = ranks.get(dist.get_rank(), -1)
        description = getattr(group, "group_desc", "") or ("default_pg" if group is c10d._get_default_group() else "")
        groups.append({"name": str(name), "description": str(description), "backend": str(backend or ""),
                       "group_rank": int(own_rank), "ranks": sorted(int(rank) for rank in ranks)})
    groups.sort(key=lambda group: (len(group["name"]), group["name"]))
    return groups


def _identity():
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_initialized():
        return None
    identity = {"backend": str(dist.get_backend()), "rank": dist.get_rank(),
                "world_size": dist.get_world_size()}
    try:
        identity["process_groups"] = _process_groups(dist)
    except Exception:  # private tables of another torch version: the identity still counts
        pass
    return identity


def record_process_group(native):
    identity = _identity()
    if identity is not None:
        native.add_metadata("distributed", json.dumps(identity))


def _recording_after(original):
    """`original` (init_process_group, new_group), then the identity recorded again."""

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        result = original(*args, **kwargs)
        try:
            if _watching["native"] is not None:
                record_process_group(_watching["native"])
        except Exception:  # the job's own call must never fail because of the profiler
            pass
        return result

    wrapper._aiprof_watched = True
    return wrapper


def _recording_group(original, c10d):
    """`original` inside a range naming its process group, when that is not the default one."""
    signature = inspect.signature(original)

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        native = _watching["native"]
        name = None
        if native is not None:
            try:
                group = signature.bind_partial(*args, **kwargs).arguments.get("group")
                if group is not None and group is not c10d.GroupMember.WORLD:
                    name = _group_tables(c10d)[0].get(group)
            except Exception:  # the job's own call must never fail because of the profiler
                name = None
        if name is None:
            return original(*args, **kwargs)
        native.process_group_begin(str(name))
        try:
            return original(*args, **kwargs)
        finally:
            native.process_group_end()

    wrapper._aiprof_watched = True
    return wrapper


def _wrap_each(dist, names, wrap):
    """Replaces each torch.distributed function in `names` by wrap(function), once: a
    function already wrapped (a second profile in the same process) is left as it is."""
    for name in names:
        original = getattr(dist, name, None)
        if original is not None and not getattr(original, "_aiprof_watched", False):
            setattr(dist, name, wrap(original))


def watch_process_group(native):
    """Records the identity now if the group exists, and again after every
    init_process_group or new_group (which the job may call after profiling started)."""
    if "torch" not in sys.modules:  # never import torch on the job's behalf
        return
    try:
        import torch.distributed as dist
    except ImportError:
        return
    if not dist.is_available():
        return
    _watching["native"] = native
    record_process_group(native)
    _wrap_each(dist, ("init_process_group", "new_group"), _recording_after)
    try:
        import torch.distributed.distributed_c10d as c10d
    except ImportError:
        return
    _wrap_each(dist, _GROUP_CALLS, lambda original: _recording_group(original, c10d))
