"""Seed 003 (MindSpore Profiler), its environment form: MS_PROFILER_OPTIONS with "start":
true, set before an unchanged training script runs with the runtime in the process
(LD_PRELOAD), as `export MS_PROFILER_OPTIONS=...` is set before a MindSpore job. The keys
that apply are mapped (output_path, op_time, profile_memory, profile_communication,
l2_cache); the ones that select Ascend hardware or MindSpore internals are refused by name
on stderr and the job runs. MindSpore's own Python API (mindspore.Profiler in MindSpore
scripts) is covered in README.md."""

import json
import os
import subprocess
import tempfile
import unittest

from seed_support import (PYTHON, RUNTIME, UNCHANGED_TRAIN, exported_timeline, job_environment,
                          prof_dirs, slice_names, trace_events)


class Seed003Test(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.script = os.path.join(self.tmp, "train.py")
        with open(self.script, "w") as handle:
            handle.write(UNCHANGED_TRAIN)
        self.output = os.path.join(self.tmp, "XXX")

    def tearDown(self):
        self._tmp.cleanup()

    def run_job(self, options, steps=3):
        text = options if isinstance(options, str) else json.dumps(options)
        env = job_environment(MS_PROFILER_OPTIONS=text, LD_PRELOAD=RUNTIME)
        env.pop("PYTHONPATH", None)  # an unchanged job: no aiprof package on its path
        result = subprocess.run([PYTHON, self.script, str(steps)], env=env, cwd=self.tmp,
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("trained", result.stdout)
        return result

    # The seed's own line, with its output path: the job's operators are collected; the one
    # key without a counterpart here (aicore_metrics) is named on stderr.
    def test_seed_options_collect_the_job(self):
        result = self.run_job({"start": True, "output_path": self.output,
                               "profile_memory": False, "profile_communication": False,
                               "aicore_metrics": 0, "l2_cache": False})
        self.assertIn('MS_PROFILER_OPTIONS "aicore_metrics" selects Ascend AI Core counters',
                      result.stderr)
        dirs = prof_dirs(self.output)
        self.assertEqual(len(dirs), 1, os.listdir(self.tmp))
        names = slice_names(exported_timeline(dirs[0]))
        self.assertEqual(names["aten::addmm"], 6)  # 3 steps x 2 Linear
        self.assertGreater(names["Optimizer.step#SGD.step"], 0)

    # profile_memory=true records the allocator; op_time=false leaves the operators out;
    # output_path defaults to ./data as in MindSpore.
    def test_profile_memory_and_op_time(self):
        self.run_job({"start": True, "profile_memory": True})
        dirs = prof_dirs(os.path.join(self.tmp, "data"))
        self.assertEqual(len(dirs), 1)
        events = trace_events(exported_timeline(dirs[0]))
        self.assertTrue(any(e.get("name") == "[memory]" for e in events))
        addmm = [e for e in events if e.get("name") == "aten::addmm"]
        self.assertTrue(addmm)
        self.assertTrue(all("CPU Mem (B)" in e["args"] for e in addmm), addmm[0])

        self.run_job({"start": True, "output_path": self.output, "op_time": False})
        names = slice_names(exported_timeline(prof_dirs(self.output)[0]))
        self.assertEqual(names["aten::addmm"], 0)

    # "start": false is MindSpore's "off": nothing is collected or said.
    def test_start_false_collects_nothing(self):
        result = self.run_job({"start": False, "output_path": self.output})
        self.assertFalse(os.path.exists(self.output))
        self.assertNotIn("aiprof", result.stderr)

    # Text that is not a JSON object is said plainly; the job runs unprofiled.
    def test_unreadable_options(self):
        result = self.run_job('{"start": true, "output_path": ')
        self.assertIn("MS_PROFILER_OPTIONS is not a JSON object; profiling not started",
                      result.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "data")))

    # Keys aiprof does not map are named, not silently dropped.
    def test_unmapped_keys_are_named(self):
        result = self.run_job({"start": True, "output_path": self.output, "timeline_limit": 500,
                               "parallel_strategy": True, "data_process": True,
                               "no_such_key": 1})
        for key in ("timeline_limit", "parallel_strategy", "no_such_key"):
            self.assertIn('MS_PROFILER_OPTIONS "%s"' % key, result.stderr)
        self.assertNotIn("data_process", result.stderr)  # on here too
        self.assertEqual(len(prof_dirs(self.output)), 1)


if __name__ == "__main__":
    unittest.main()
