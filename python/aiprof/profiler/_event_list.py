"""torch's own result objects for the recorded operators, so the torch.profiler idioms
behave exactly as in torch:

    prof.events()                      # EventList of FunctionEvents, parents and children linked
    prof.events().total_average(), prof.events().table(...), prof.events().export_chrome_trace(p)
    prof.key_averages().table(sort_by="self_cpu_memory_usage", row_limit=10)
    prof.key_averages(group_by_input_shape=True).table(...)
    prof.key_averages(group_by_stack_n=5).table(...)

Each framework operator of the model (an _recorded.Event) becomes a
torch.autograd.profiler_util.FunctionEvent, linked to its parent and children as the model
nests them; each allocator event outside every operator becomes a "[memory]" event, as torch
lists it. Memory figures are the memory analysis' (src/analysis/memory.h): the inclusive
ones are the events' cpu_memory_usage / cuda_memory_usage, and the self ones are read from
it too rather than derived again. torch then groups (EventList.key_averages) and prints the
table (columns, units and footer as the installed torch prints them)."""

import inspect

# torch's RecordScope values (aten/src/ATen/record_function.h) that FunctionEvent takes.
_SCOPE_FUNCTION = 0
_SCOPE_BACKWARD_FUNCTION = 1
_SCOPE_USER = 7

# torch's DeviceType values whose allocations torch.profiler counts as CPU memory (CPU,
# MKLDNN, IDEEP); the memory analysis splits host and device memory the same way.
_HOST_DEVICE_TYPES = (0, 2, 5)

_event_class = None


def _record_scope(event):
    if event.is_user_annotation:
        return _SCOPE_USER
    return _SCOPE_BACKWARD_FUNCTION if event.backward else _SCOPE_FUNCTION


def _function_event_class():
    """FunctionEvent whose self memory is the memory analysis' figure (torch would subtract
    the children's inclusive figures; both agree on the model's tree)."""
    global _event_class
    if _event_class is None:
        from torch.autograd.profiler_util import FunctionEvent

        class RecordedFunctionEvent(FunctionEvent):
            _self_cpu_memory = 0
            _self_cuda_memory = 0

            @property
            def self_cpu_memory_usage(self):
                return self._self_cpu_memory

            @property
            def self_cuda_memory_usage(self):
                return self._self_cuda_memory

        _event_class = RecordedFunctionEvent
    return _event_class


def _new_event(event_class, accepted, arguments, self_cpu_memory, self_cuda_memory):
    event = event_class(**{key: value for key, value in arguments.items() if key in accepted})
    event._self_cpu_memory = self_cpu_memory
    event._self_cuda_memory = self_cuda_memory
    return event


def event_list(trace, with_flops=False, profile_memory=False, use_cuda=False):
    """A torch EventList of FunctionEvents for `trace` (an _recorded.RecordedWindow): times
    in us from the start of the window, children linked as the model nests them."""
    from torch.autograd.profiler_util import EventList

    filtered, display_name = _torch_name_rules()
    event_class = _function_event_class()
    accepted = set(inspect.signature(event_class.__init__).parameters)
    origin = trace.start_ns
    operators = trace.operators(include_user_annotations=True)
    converted = {}
    items = []
    left_out = []  # operators torch leaves out of its events (profiler utilities)
    for event in operators:
        if filtered(event.name):
            left_out.append(event)
            continue
        arguments = {
            "id": event.id,
            "name": display_name(event.name),
            "trace_name": event.name,
            "thread": event.tid,
            "start_us": (event.start_ns - origin) / 1000.0,
            "end_us": (event.end_ns - origin) / 1000.0,
            "fwd_thread": event.fwd_thread,
            "input_shapes": list(event.input_shapes or []),
            "stack": list(event.stack or []),
            "scope": _record_scope(event),
            "cpu_memory_usage": event.cpu_memory,
            "cuda_memory_usage": event.device_memory,
            "sequence_nr": event.sequence_nr,
            "flops": event.flops or None,
        }
        function_event = _new_event(event_class, accepted, arguments, event.self_cpu_memory,
                                    event.self_device_memory)
        converted[event.id] = function_event
        items.append((event.start_ns, -event.end_ns, function_event))
    next_id = max((e.id for e in operators), default=-1) + 1
    kept = _kept_ancestor(converted)
    for event in left_out:  # their own memory stays counted: by an enclosing operator...
        survivor = kept(event)
        if survivor is not None:
            survivor._self_cpu_memory += event.self_cpu_memory
            survivor._self_cuda_memory += event.self_device_memory
        elif event.self_cpu_memory or event.self_device_memory:  # ...else on its own
            start = (event.start_ns - origin) / 1000.0
            arguments = {
                "id": next_id, "name": "[memory]", "trace_name": None, "thread": event.tid,
                "start_us": start, "end_us": start, "fwd_thread": event.tid,
                "input_shapes": [], "stack": [], "scope": _SCOPE_FUNCTION,
                "cpu_memory_usage": event.self_cpu_memory,
                "cuda_memory_usage": event.self_device_memory, "sequence_nr": -1,
            }
            next_id += 1
            items.append((event.start_ns, -event.start_ns, _new_event(
                event_class, accepted, arguments, event.self_cpu_memory,
                event.self_device_memory)))
    for memory in trace.memory_events():
        (_pid, tid, ts_ns, _address, size, _allocated, _reserved, device_type, _index,
         out_of_memory, outside_operators, _category) = memory
        if not (outside_operators or out_of_memory):
            continue
        # torch lists each such event, and each out-of-memory report, as an event of its
        # own carrying its bytes.
        host = device_type in _HOST_DEVICE_TYPES
        cpu, cuda = (size, 0) if host else (0, size)
        start = (ts_ns - origin) / 1000.0
        arguments = {
            "id": next_id, "name": "[OutOfMemory]" if out_of_memory else "[memory]",
            "trace_name": None, "thread": tid, "start_us": start, "end_us": start,
            "fwd_thread": tid, "input_shapes": [], "stack": [], "scope": _SCOPE_FUNCTION,
            "cpu_memory_usage": cpu, "cuda_memory_usage": cuda, "sequence_nr": -1,
        }
        next_id += 1
        items.append((ts_ns, -ts_ns, _new_event(event_class, accepted, arguments, cpu, cuda)))
    items.sort(key=lambda item: (item[0], item[1]))
    result = EventList([item[2] for item in items], use_cuda=use_cuda, with_flops=with_flops,
                       profile_memory=profile_memory)
    for event in operators:
        parent = kept(event)
        if event.id in converted and parent is not None:
            child = converted[event.id]
            child.set_cpu_parent(parent)
            parent.append_cpu_child(child)
    _remove_duplicate_nodes(result)
    result._set_backward_stacktraces()
    result._tree_built = True
    return result


def _torch_name_rules():
    """torch's own rules for its event list: which names it leaves out (profiler utilities
    such as aten::is_leaf) and how it shows a name ("ProfilerStep#3" as "ProfilerStep*")."""
    try:
        from torch.autograd.profiler_util import _filter_name, _rewrite_name
    except ImportError:  # a torch without them: keep every name as recorded
        return (lambda name: False), (lambda name: name)
    return _filter_name, (lambda name: _rewrite_name(name, with_wildcard=True))


def _kept_ancestor(converted):
    """event -> the FunctionEvent of its nearest enclosing operator that torch keeps."""
    def kept(event):
        parent = event.parent
        while parent is not None and parent.id not in converted:
            parent = parent.parent
        return converted[parent.id] if parent is not None else None

    return kept


def _remove_duplicate_nodes(result):
    """torch's own step: an operator whose only child has its name (aten::add calling
    aten::add) keeps the child's children and the child goes. The child's self memory moves
    to the operator that remains, so the figures still add up."""
    before = list(result)
    result._remove_dup_nodes()
    remaining = set(map(id, result))
    for event in before:
        if id(event) in remaining:
            continue
        survivor = event.cpu_parent
        while survivor is not None and id(survivor) not in remaining:
            survivor = survivor.cpu_parent
        if survivor is not None:
            survivor._self_cpu_memory += event._self_cpu_memory
            survivor._self_cuda_memory += event._self_cuda_memory


def key_averages(events, group_by_input_shape=False, group_by_stack_n=0):
    """torch's key_averages over an event_list(): an EventList of FunctionEventAvg with
    .table()."""
    if group_by_stack_n and not any(getattr(e, "stack", None) for e in events):
        raise ValueError("group_by_stack_n needs call stacks: profile with with_stack=True")
    # EventList.key_averages spells it group_by_input_shapes; positional fits every version.
    return events.key_averages(group_by_input_shape, group_by_stack_n)
