"""with_stack covers every Python thread: one that existed before start() and one started
inside the window both get Call stacks on their operators (frames entered after start())."""

import threading
import unittest
import warnings

import torch

import aiprof.profiler as aiprof_profiler


def stacked_work_of_existing_thread(x):
    return torch.relu(x)


def stacked_work_of_new_thread(x):
    return torch.sigmoid(x)


class ThreadStacksTest(unittest.TestCase):
    def test_all_threads_have_call_stacks(self):
        warnings.simplefilter("ignore")
        torch.set_num_threads(1)
        x = torch.randn(4, 4)
        go = threading.Event()
        existing = threading.Thread(
            target=lambda: (go.wait(), stacked_work_of_existing_thread(x)))
        existing.start()
        with aiprof_profiler.profile(activities=[aiprof_profiler.ProfilerActivity.CPU],
                                     with_stack=True) as prof:
            go.set()
            existing.join()
            started = threading.Thread(target=stacked_work_of_new_thread, args=(x,))
            started.start()
            started.join()
            torch.tanh(x)
        events = {e.name: e for e in prof.events()}
        for op, function in (("aten::relu", "stacked_work_of_existing_thread"),
                             ("aten::sigmoid", "stacked_work_of_new_thread"),
                             ("aten::tanh", "<built-in function tanh>")):
            self.assertIn(op, events)
            self.assertTrue(any(function in frame for frame in events[op].stack),
                            "%s: %s" % (op, events[op].stack))
        self.assertEqual(len({events[op].thread for op in ("aten::relu", "aten::sigmoid",
                                                           "aten::tanh")}), 3)
        # The window's end removes the hook for threads started afterwards.
        after = []
        late = threading.Thread(target=lambda: after.append(__import__("sys").getprofile()))
        late.start()
        late.join()
        self.assertEqual(after, [None])


if __name__ == "__main__":
    unittest.main()
