"""Record ids come from the torch plugin, not from torch (its callback does not ask for
needsIds): every operator still has an id that is non-zero and unique in the process, on
every thread, a record_function range that ends on another thread is closed through it,
backward operators keep the sequence numbers that link them to their forward operators,
and the names the plugin reads from RecordFunction's members are torch's."""

import collections
import threading
import time
import unittest
import warnings

import torch

import aiprof.profiler as aiprof_profiler

THREADS = 3
OPERATORS_PER_THREAD = 3000  # with the main thread's, more than one id batch (4096)


def operators(x):
    for _ in range(OPERATORS_PER_THREAD // 3):
        torch.tanh(torch.relu(x) + 1)


class RecordIdsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        warnings.simplefilter("ignore")
        torch.set_num_threads(1)
        x = torch.randn(4, 4)
        weight = torch.randn(4, 4, requires_grad=True)
        ended = torch.futures.Future()

        def end_range_later():
            time.sleep(0.01)
            ended.set_result(None)

        with aiprof_profiler.profile(activities=[aiprof_profiler.ProfilerActivity.CPU]) as prof:
            workers = [threading.Thread(target=operators, args=(x,)) for _ in range(THREADS)]
            for worker in workers:
                worker.start()
            operators(x)
            (x @ weight).sin().sum().backward()
            with torch.autograd.profiler.record_function("ends elsewhere") as scope:
                done = scope._call_end_callbacks_on_future(ended)
            finisher = threading.Thread(target=end_range_later)
            finisher.start()
            finisher.join()
            done.wait()
            for worker in workers:
                worker.join()
        cls.events = prof._trace_data().events  # the model's operators, with their record ids
        cls.dropped = prof._trace_data().dropped

    def test_ids_are_nonzero_and_unique_in_the_process(self):
        self.assertEqual(self.dropped, 0)
        self.assertEqual(len({e.tid for e in self.events}), THREADS + 1)  # and the main one
        self.assertGreater(len(self.events), 4096)
        self.assertFalse([e.name for e in self.events if e.record_id == 0])
        repeated = [key for key, count in
                    collections.Counter((e.pid, e.record_id) for e in self.events).items()
                    if count > 1]
        self.assertEqual(repeated, [])

    def test_range_ended_on_another_thread_is_closed(self):
        ranges = [e for e in self.events if e.name == "ends elsewhere"]
        self.assertEqual(len(ranges), 1)
        self.assertTrue(ranges[0].closed)
        self.assertGreaterEqual(ranges[0].end_ns - ranges[0].start_ns, 10_000_000)
        self.assertTrue(all(e.closed for e in self.events))

    def test_names_of_schema_and_named_record_functions(self):
        # The plugin reads RecordFunction's name itself: an operator schema's name for
        # dispatcher operators, the given string for autograd nodes and user ranges.
        names = {e.name for e in self.events}
        self.assertLessEqual({"aten::relu", "aten::tanh", "aten::add", "aten::mm"}, names)
        self.assertTrue([n for n in names if "SinBackward0" in n], sorted(names))
        self.assertIn("ends elsewhere", names)

    def test_backward_operators_keep_forward_sequence_numbers(self):
        forward = {e.sequence_nr for e in self.events
                   if not e.backward and e.sequence_nr >= 0}
        backward = {e.sequence_nr for e in self.events if e.backward}
        self.assertEqual(len(backward), 3)  # SumBackward0, SinBackward0, MmBackward0
        self.assertLessEqual(backward, forward)


if __name__ == "__main__":
    unittest.main()
