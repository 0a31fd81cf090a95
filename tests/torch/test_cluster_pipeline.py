"""A real pipeline-parallel gloo job: 4 ranks as 2 pipeline stages × 2 data-parallel
replicas (examples/pytorch/distributed_gloo.py --pipeline-stages=2: activations and their
gradients sent between the stages, gradients all-reduced inside each stage's data-parallel
group), profiled with the Python API, every step recorded. `aiprof cluster` must find the stages and write one
stage row per stage and step, holding the maximum of its ranks' columns, and msprof-analyze's
DP/PP/TP Index columns with the ranks' places, in cluster_step_trace_time.csv and in
cluster.db. The slow-rank diagnosis compares each rank with the other ranks of its stage and
the stages with each other (the last stage's different work is not held against its ranks).
The data-parallel all_reduces run in two groups, (0, 1) and (2, 3), which the gloo ranges of
torch 1.13 do not name: the Python package records each call's group, so they are paired
within their group (the last stage issues more of them than the first)."""

import csv
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

from test_cluster import run_cluster
from test_distributed import EXAMPLE, gloo_unavailable

RANKS, STAGES, STEPS = 4, 2, 2
REPLICAS = RANKS // STAGES
TIMES = ["Computing", "Communication(Not Overlapped)", "Overlapped", "Communication", "Free",
         "Stage", "Bubble", "Communication(Not Overlapped and Exclude Receive)", "Preparing"]


def place(rank):
    """(DP, PP, TP) index of a rank in the example's layout (Megatron's): stage rank // replicas."""
    return rank % REPLICAS, rank // REPLICAS, 0


@unittest.skipIf(gloo_unavailable(), gloo_unavailable() or "")
class PipelineClusterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        traces = os.path.join(cls._tmp.name, "traces")
        env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "AIPROF_OPTIONS")}
        job = subprocess.run([sys.executable, EXAMPLE, "--world-size=%d" % RANKS,
                              "--pipeline-stages=%d" % STAGES, "--steps=%d" % STEPS,
                              "--profile-dir=" + traces, "--record-steps"], env=env, capture_output=True,
                             text=True, timeout=150)
        if job.returncode != 0:
            raise AssertionError("the pipeline job failed:\n" + job.stdout + job.stderr)
        cls.issued = {}
        for line in job.stdout.splitlines():
            if line.startswith("{"):
                rank_line = json.loads(line)
                cls.issued[rank_line["rank"]] = rank_line["issued"]
        cls.report, result_dir = run_cluster(traces)
        with open(os.path.join(result_dir, "cluster_communication.json")) as handle:
            cls.communication = json.load(handle)
        with open(os.path.join(result_dir, "cluster_step_trace_time.csv")) as handle:
            reader = csv.DictReader(handle)
            cls.header, cls.rows = reader.fieldnames, list(reader)
        with sqlite3.connect(os.path.join(result_dir, "cluster.db")) as db:
            cls.db_rows = db.execute(
                "SELECT step, type, \"index\", dp_index, pp_index, tp_index, bubble "
                "FROM ClusterStepTraceTime").fetchall()
            cls.db_comm = db.execute(
                "SELECT t.rank_id, t.hccl_op_name, m.rank_set FROM ClusterCommunicationTime t "
                "JOIN CommunicationGroupMapping m ON m.group_name = t.group_name").fetchall()
            cls.db_stages = db.execute(
                "SELECT stage, ranks, steps FROM ClusterStageDiagnosis ORDER BY stage").fetchall()
        with open(os.path.join(result_dir, "cluster_base_info.json")) as handle:
            cls.base_info = json.load(handle)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_report_names_the_stages(self):
        self.assertIn("Parallel layout: 2 pipeline stage(s) (from ", self.report)
        self.assertIn("stage 0 = (0, 1); stage 1 = (2, 3)", self.report)

    def test_header_has_the_parallel_indices(self):
        self.assertEqual(self.header[-3:], ["DP Index", "PP Index", "TP Index"])

    def test_rank_rows_carry_their_place(self):
        ranks = [row for row in self.rows if row["Type"] == "rank"]
        self.assertEqual(len(ranks), RANKS * STEPS)
        for row in ranks:
            self.assertEqual((row["DP Index"], row["PP Index"], row["TP Index"]),
                             tuple(str(index) for index in place(int(row["Index"]))), row)

    def test_one_stage_row_per_stage_and_step_holds_its_ranks_maximum(self):
        steps = sorted({row["Step"] for row in self.rows})
        self.assertEqual(len(steps), STEPS)
        for step in steps:
            stage_rows = [row for row in self.rows if row["Type"] == "stage" and row["Step"] == step]
            self.assertEqual([row["Index"] for row in stage_rows], ["(0, 1)", "(2, 3)"])
            for stage, row in enumerate(stage_rows):
                self.assertEqual((row["DP Index"], row["PP Index"], row["TP Index"]), ("NA",) * 3)
                members = [r for r in self.rows if r["Type"] == "rank" and r["Step"] == step
                           and place(int(r["Index"]))[1] == stage]
                self.assertEqual(len(members), REPLICAS)
                for column in TIMES:
                    self.assertEqual(float(row[column]),
                                     max(float(member[column]) for member in members), column)
        # Every rank of a pipeline waits in recv for the other stage: its bubble.
        for row in self.rows:
            self.assertGreater(float(row["Bubble"]), 0, row)

    def test_database_holds_the_same_indices(self):
        self.assertEqual(len(self.db_rows), len(self.rows))
        for step, row_type, index, dp, pp, tp, bubble in self.db_rows:
            if row_type == "stage":
                self.assertEqual((dp, pp, tp), (None, None, None))
            else:
                self.assertEqual((dp, pp, tp), place(int(index)))

    def test_all_reduces_are_paired_within_their_data_parallel_group(self):
        per_rank = {rank: 0 for rank in range(RANKS)}
        for step, groups in self.communication.items():
            for group, ops in groups.items():
                for name, ranks in ops.items():
                    if name == "Total Op Info" or "_allreduce_" not in name:
                        continue
                    # Only the ranks of one data-parallel group take part, both of them.
                    stage = place(int(next(iter(ranks))))[1]
                    members = [stage * REPLICAS + r for r in range(REPLICAS)]
                    self.assertEqual(group, "(%s)" % ", ".join(map(str, members)), (step, name))
                    self.assertEqual(sorted(map(int, ranks)), members, (step, name))
                    times = {rank: info["Communication Time Info"] for rank, info in ranks.items()}
                    last = max(t["Start Timestamp(us)"] for t in times.values())
                    for rank, t in times.items():
                        per_rank[int(rank)] += 1
                        # Wait: until the group's last rank arrived (µs starts, ms times).
                        expected = min(max((last - t["Start Timestamp(us)"]) / 1e3, 0),
                                       t["Elapse Time(ms)"])
                        self.assertAlmostEqual(t["Wait Time(ms)"], expected, delta=2e-3)
                        self.assertAlmostEqual(t["Transit Time(ms)"] + t["Wait Time(ms)"],
                                               t["Elapse Time(ms)"], delta=2e-3)
        self.assertEqual(per_rank, {rank: self.issued[rank]["allreduce"] for rank in range(RANKS)})
        self.assertNotEqual(per_rank[0], per_rank[RANKS - 1])  # the stages issue different counts
        for rank, name, rank_set in self.db_comm:
            if "_allreduce_" in name:
                stage = place(rank)[1]
                self.assertEqual(rank_set, "(%s)" % ", ".join(
                    str(stage * REPLICAS + r) for r in range(REPLICAS)), (rank, name))

    def test_ranks_are_judged_within_their_stage(self):
        self.assertRegex(self.report, r"Slow ranks.*(against|within 5% of) the median rank of its "
                                      r"pipeline stage")
        self.assertIn("Slow stages", self.report)
        verdicts = self.base_info["ranks_diagnosis"]
        self.assertEqual(sorted(v["rank"] for v in verdicts), list(range(RANKS)))
        for verdict in verdicts:
            self.assertEqual(verdict["stage"], place(verdict["rank"])[1], verdict)
            self.assertEqual(verdict["steps"], STEPS, verdict)
        for step in self.base_info["divergent_steps"]:  # a spread inside one stage
            self.assertEqual(place(step["slowest_rank"])[1], step["stage"], step)
            self.assertEqual(place(step["fastest_rank"])[1], step["stage"], step)

    def test_stages_are_compared_with_each_other(self):
        stages = self.base_info["stages_diagnosis"]
        self.assertEqual([(s["stage"], s["ranks"], s["steps"]) for s in stages],
                         [(0, [0, 1], STEPS), (1, [2, 3], STEPS)])
        self.assertEqual(self.db_stages, [(0, "(0, 1)", STEPS), (1, "(2, 3)", STEPS)])


if __name__ == "__main__":
    unittest.main()
