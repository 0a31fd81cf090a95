#!/usr/bin/python3
"""A small data-parallel PyTorch job on CPU: two (or more) ranks talk through gloo.

Run without --rank, it starts --world-size rank processes itself the way torchrun does
(RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT in each one's environment) and
waits for them; with --spawn it uses torch.multiprocessing.spawn instead (the ranks learn
their rank from an argument, not from the environment). Every rank trains a small MLP, averages its gradients with all_reduce and
issues one of each other collective per step, then prints what it issued as one JSON line
("issued": op type -> count), so tests can check a profile against it. --slow-rank=R makes
rank R compute --extra-compute-ms more per step, so the other ranks wait for it in the
collectives.

--pipeline-stages=P splits the ranks Megatron's way into P pipeline stages of
world-size / P data-parallel replicas each: rank r is stage r // (world-size / P) and
replica r % (world-size / P). Each stage runs one part of the MLP and sends its
activations to the same replica on the next stage, which sends back their gradients once
the last stage has the loss (send/recv between stages, addressed by global rank); then
every rank averages its gradients with all_reduce inside its stage's data-parallel group.
The pipeline and data-parallel groups are made with new_group, named "pp" and "dp"
(group_desc) where torch.distributed takes a name (torch >= 2.3).

    aiprof --output=out --task-time=on python3 examples/pytorch/distributed_gloo.py --steps=3

or, profiling each rank with the Python API instead (PYTHONPATH=build/python; add
--record-steps for a schedule that marks every step as ProfilerStep#N):

    python3 examples/pytorch/distributed_gloo.py --steps=3 --profile-dir=traces
    python3 examples/pytorch/distributed_gloo.py --world-size=4 --pipeline-stages=2 \
        --profile-dir=traces --record-steps && aiprof cluster -d traces
"""
import contextlib
import argparse
import json
import os
import socket
import subprocess
import sys


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world-size", type=int, default=2)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--rank", type=int, default=None, help="run as this rank (set by the launcher)")
    parser.add_argument("--spawn", action="store_true", help="start the ranks with torch.multiprocessing.spawn")
    parser.add_argument("--profile-dir", default=None,
                        help="profile each rank with aiprof.profiler into this directory")
    parser.add_argument("--record-steps", action="store_true",
                        help="with --profile-dir: a schedule recording every step, so each "
                             "step is a ProfilerStep#N range (without it, one range of the run)")
    parser.add_argument("--slow-rank", type=int, default=None,
                        help="this rank computes --extra-compute-ms more per step (a straggler)")
    parser.add_argument("--extra-compute-ms", type=float, default=50.0)
    parser.add_argument("--pipeline-stages", type=int, default=1,
                        help="pipeline-parallel stages (the rest of the ranks are data-parallel replicas)")
    return parser.parse_args(argv)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def launch_ranks(args):
    port = str(free_port())
    ranks = []
    for rank in range(args.world_size):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(args.world_size),
                   LOCAL_WORLD_SIZE=str(args.world_size), MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
        command = [sys.executable, os.path.abspath(__file__), "--rank", str(rank),
                   "--world-size", str(args.world_size), "--steps", str(args.steps)]
        if args.slow_rank is not None:
            command += ["--slow-rank", str(args.slow_rank), "--extra-compute-ms", str(args.extra_compute_ms)]
        if args.profile_dir:
            command.append("--profile-dir=" + args.profile_dir)
        if args.pipeline_stages > 1:
            command.append("--pipeline-stages=%d" % args.pipeline_stages)
        if args.record_steps:
            command.append("--record-steps")
        ranks.append(subprocess.Popen(command, env=env))
    codes = [rank.wait() for rank in ranks]
    return max(codes, key=abs)


def spawn_ranks(args):
    import torch.multiprocessing

    port = str(free_port())
    torch.multiprocessing.spawn(spawned_rank, args=(args, port), nprocs=args.world_size)
    return 0


def spawned_rank(rank, args, port):
    args.rank = rank
    run_rank(args, init_method="tcp://127.0.0.1:" + port)


def run_rank(args, init_method="env://"):
    import torch
    import torch.distributed as dist
    from torch import nn

    dist.init_process_group("gloo", init_method=init_method, rank=args.rank, world_size=args.world_size)
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(rank)
    issued = {}

    def count(op_type, times=1):
        issued[op_type] = issued.get(op_type, 0) + times

    if args.pipeline_stages > 1:
        step = PipelineStage(rank, world, args.pipeline_stages, count)
    else:
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

        def step():
            train_step(model, optimizer, rank, world, count)

    with rank_profiler(args, rank) as profiler:
        for _ in range(args.steps):
            if rank == args.slow_rank:
                extra_compute(args.extra_compute_ms)
            step()
            if profiler is not None:
                profiler.step()

    dist.destroy_process_group()
    # One write() of less than PIPE_BUF bytes: ranks sharing a pipe never interleave lines.
    sys.stdout.flush()
    os.write(sys.stdout.fileno(),
             (json.dumps({"rank": rank, "world_size": world, "issued": issued}) + "\n").encode())
    return 0


def rank_profiler(args, rank):
    if not args.profile_dir:
        return contextlib.nullcontext()
    import aiprof.profiler

    handler = aiprof.profiler.tensorboard_trace_handler(args.profile_dir, worker_name="rank%d" % rank)
    schedule = aiprof.profiler.schedule(wait=0, active=args.steps, repeat=1) if args.record_steps else None
    return aiprof.profiler.profile(activities=[aiprof.profiler.ProfilerActivity.CPU],
                                   record_shapes=True, schedule=schedule, on_trace_ready=handler)


def extra_compute(milliseconds):
    """Matrix products for `milliseconds`: a straggler's extra work, recorded as operators."""
    import time
    import torch

    matrix = torch.randn(128, 128)
    deadline = time.perf_counter() + milliseconds / 1e3
    while time.perf_counter() < deadline:
        matrix = torch.mm(matrix, matrix).tanh()


def train_step(model, optimizer, rank, world, count):
    """One data-parallel step plus one of each other collective; `count` tallies them."""
    import torch
    import torch.distributed as dist
    from torch import nn

    inputs, labels = torch.randn(32, 64), torch.randint(0, 10, (32,))
    optimizer.zero_grad()
    nn.functional.cross_entropy(model(inputs), labels).backward()
    for parameter in model.parameters():  # data-parallel gradient averaging
        dist.all_reduce(parameter.grad)
        parameter.grad /= world
        count("allreduce")
    optimizer.step()

    weights = model[0].weight.detach().clone()
    dist.broadcast(weights, src=0)
    count("broadcast")
    gathered = [torch.empty(16) for _ in range(world)]
    dist.all_gather(gathered, torch.full((16,), float(rank)))
    count("allgather")
    total = torch.ones(256)
    dist.reduce(total, dst=0)
    count("reduce")
    if rank == 0:
        dist.send(torch.arange(8.0), dst=1)
        count("send")
    elif rank == 1:
        received = torch.empty(8)
        dist.recv(received, src=0)
        count("recv")
    dist.barrier()
    count("barrier")


def new_named_group(ranks, name):
    """dist.new_group, named where this torch takes a group_desc (>= 2.3; 1.x numbers groups)."""
    import inspect
    import torch.distributed as dist

    if "group_desc" in inspect.signature(dist.new_group).parameters:
        return dist.new_group(ranks, group_desc=name)
    return dist.new_group(ranks)


class PipelineStage:
    """One rank of a pipeline-parallel x data-parallel job (Megatron's rank layout)."""

    def __init__(self, rank, world, stages, count):
        import torch
        from torch import nn

        if world % stages != 0 or stages < 2:
            raise SystemExit("--pipeline-stages must divide --world-size and be at least 2")
        replicas = world // stages
        self.stage, self.count = rank // replicas, count
        self.previous = rank - replicas if self.stage > 0 else None
        self.next = rank + replicas if self.stage < stages - 1 else None
        # Every rank creates every group, in the same order (torch.distributed requires it).
        # The pipeline groups carry no operation here (send/recv name global ranks), but the
        # profile records them: named, they say which ranks form a pipeline.
        for replica in range(replicas):
            new_named_group([replica + s * replicas for s in range(stages)], "pp")
        for stage in range(stages):
            group = new_named_group([stage * replicas + r for r in range(replicas)], "dp")
            if stage == self.stage:
                self.data_parallel_group = group
        self.data_parallel_size = replicas
        self.model = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        if self.next is None:
            self.model.append(nn.Linear(64, 10))
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01)

    def __call__(self):
        import torch
        import torch.distributed as dist
        from torch import nn

        self.optimizer.zero_grad()
        if self.previous is None:
            inputs = torch.randn(32, 64)
        else:  # the previous stage's activations
            inputs = torch.empty(32, 64)
            dist.recv(inputs, src=self.previous)
            self.count("recv")
            inputs.requires_grad_()
        outputs = self.model(inputs)
        if self.next is None:
            nn.functional.cross_entropy(outputs, torch.randint(0, 10, (32,))).backward()
        else:
            dist.send(outputs.detach(), dst=self.next)
            self.count("send")
            gradient = torch.empty_like(outputs)  # the next stage's gradient of our outputs
            dist.recv(gradient, src=self.next)
            self.count("recv")
            outputs.backward(gradient)
        if self.previous is not None:
            dist.send(inputs.grad, dst=self.previous)
            self.count("send")
        for parameter in self.model.parameters():  # data-parallel gradient averaging
            dist.all_reduce(parameter.grad, group=self.data_parallel_group)
            parameter.grad /= self.data_parallel_size
            self.count("allreduce")
        self.optimizer.step()


def main(argv):
    args = parse_args(argv)
    if args.rank is None and "RANK" in os.environ and "MASTER_PORT" in os.environ:
        args.rank = int(os.environ["RANK"])  # started by torchrun
    if args.rank is not None:
        return run_rank(args)
    return spawn_ranks(args) if args.spawn else launch_ranks(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
