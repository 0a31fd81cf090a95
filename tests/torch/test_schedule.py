"""schedule() has torch.profiler's exact semantics, and profile() records exactly the steps
the schedule marks RECORD / RECORD_AND_SAVE, handing one trace per cycle to
on_trace_ready."""

import unittest
import warnings

import torch

import aiprof.profiler as aiprof_profiler

# (skip_first, wait, warmup, active, repeat)
CASES = [(0, 0, 0, 1, 0), (0, 1, 1, 2, 1), (1, 0, 1, 1, 2), (2, 1, 0, 2, 2), (0, 2, 1, 1, 0),
         (3, 0, 0, 3, 1), (1, 1, 1, 1, 3)]
STEPS = 12


def expected_cycles(skip_first, wait, warmup, active, repeat):
    """Steps of each saved cycle, derived from torch.profiler's own schedule function."""
    schedule = torch.profiler.schedule(skip_first=skip_first, wait=wait, warmup=warmup,
                                       active=active, repeat=repeat)
    cycles, current = [], []
    # STEPS calls of prof.step() leave step STEPS open when the profiler exits.
    for step in range(STEPS + 1):
        action = schedule(step)
        if action in (torch.profiler.ProfilerAction.RECORD,
                      torch.profiler.ProfilerAction.RECORD_AND_SAVE):
            current.append(step)
        if action == torch.profiler.ProfilerAction.RECORD_AND_SAVE:
            cycles.append(current)
            current = []
    if current:  # the profiler stops inside an active cycle: that trace is saved at exit
        cycles.append(current)
    return cycles


class ScheduleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        warnings.simplefilter("ignore")

    def test_schedule_function_matches_torch(self):
        for skip_first, wait, warmup, active, repeat in CASES:
            ours = aiprof_profiler.schedule(skip_first=skip_first, wait=wait, warmup=warmup,
                                            active=active, repeat=repeat)
            theirs = torch.profiler.schedule(skip_first=skip_first, wait=wait, warmup=warmup,
                                             active=active, repeat=repeat)
            for step in range(40):
                self.assertEqual(ours(step).name, theirs(step).name,
                                 "case %s step %d" % ((skip_first, wait, warmup, active, repeat),
                                                      step))

    def test_recorded_steps_and_trace_count(self):
        x = torch.randn(4, 4)
        for case in CASES:
            skip_first, wait, warmup, active, repeat = case
            traces = []

            def ready(prof):
                traces.append(sorted(s["step"] for s in prof._trace_data().steps()))

            with aiprof_profiler.profile(
                    activities=[aiprof_profiler.ProfilerActivity.CPU],
                    schedule=aiprof_profiler.schedule(skip_first=skip_first, wait=wait,
                                                      warmup=warmup, active=active,
                                                      repeat=repeat),
                    on_trace_ready=ready) as prof:
                for _ in range(STEPS):
                    torch.mm(x, x)
                    prof.step()
            self.assertEqual(traces, expected_cycles(*case), "case %s" % (case,))


if __name__ == "__main__":
    unittest.main()
