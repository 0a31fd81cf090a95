"""Step schedules with exactly torch.profiler's semantics."""

import enum
import warnings


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, active, warmup=0, repeat=0, skip_first=0, skip_first_wait=0):
    """Returns a callable step -> ProfilerAction.

    The first `skip_first` steps are skipped, then cycles of `wait` idle steps, `warmup`
    steps and `active` recorded steps repeat `repeat` times (0: until the job ends). The
    last active step of a cycle is RECORD_AND_SAVE: the trace is handed to
    on_trace_ready after it. With skip_first_wait only the first cycle's wait is skipped.
    """

    def schedule_fn(step):
        assert step >= 0
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    assert (
        wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0
    ), "Invalid profiler schedule arguments"
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results")
    return schedule_fn


def _default_schedule_fn(_step):
    """Without a schedule every step is recorded (and there are no step markers)."""
    return ProfilerAction.RECORD
