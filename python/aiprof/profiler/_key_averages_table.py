"""torch's own result objects for the recorded operators, so the torch.profiler idioms
behave exactly as in torch:

    prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10)
    prof.key_averages(group_by_input_shape=True).table(...)
    prof.key_averages(group_by_stack_n=5).table(...)

Each recorded operator (an _recorded.Event: id, name, tid, start_ns, end_ns, input_shapes,
stack, sequence_nr, fwd_thread, is_user_annotation, backward, flops) becomes
a torch.autograd.profiler_util.FunctionEvent and torch builds the tree, so torch computes
self times, groups (EventList.key_averages) and prints the table (columns, units and footer
as the installed torch prints them)."""

import inspect

# torch's RecordScope values (aten/src/ATen/record_function.h) that FunctionEvent takes.
_SCOPE_FUNCTION = 0
_SCOPE_BACKWARD_FUNCTION = 1
_SCOPE_USER = 7


def _record_scope(event):
    if event.is_user_annotation:
        return _SCOPE_USER
    return _SCOPE_BACKWARD_FUNCTION if event.backward else _SCOPE_FUNCTION


def _function_event_class():
    from torch.autograd.profiler_util import FunctionEvent

    return FunctionEvent


def event_list(events, with_flops=False, profile_memory=False):
    """A torch EventList of FunctionEvents for `events` (times in us, children linked)."""
    from torch.autograd.profiler_util import EventList

    function_event = _function_event_class()
    accepted = set(inspect.signature(function_event.__init__).parameters)
    converted = []
    for event in sorted(events, key=lambda e: (e.start_ns, -e.end_ns)):
        arguments = {
            "id": event.id,
            "name": event.name,
            "thread": event.tid,
            "start_us": event.start_ns / 1000.0,
            "end_us": event.end_ns / 1000.0,
            "fwd_thread": event.fwd_thread,
            "input_shapes": list(event.input_shapes or []),
            "stack": list(event.stack or []),
            "scope": _record_scope(event),
            "sequence_nr": event.sequence_nr,
            "flops": event.flops or None,
        }
        converted.append(function_event(
            **{key: value for key, value in arguments.items() if key in accepted}))
    result = EventList(converted, with_flops=with_flops, profile_memory=profile_memory)
    # torch's own nesting (per thread, by time), duplicate removal and backward stacks.
    result._build_tree()
    return result


def key_averages(events, group_by_input_shape=False, group_by_stack_n=0, with_flops=False,
                 profile_memory=False):
    """torch's key_averages over `events`: an EventList of FunctionEventAvg with .table()."""
    if group_by_stack_n and not any(getattr(e, "stack", None) for e in events):
        raise ValueError("group_by_stack_n needs call stacks: profile with with_stack=True")
    # EventList.key_averages spells it group_by_input_shapes; positional fits every version.
    return event_list(events, with_flops, profile_memory).key_averages(
        group_by_input_shape, group_by_stack_n)
