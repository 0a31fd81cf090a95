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

    aiprof --output=out --task-time=on python3 examples/pytorch/distributed_gloo.py --steps=3

or, profiling each rank with the Python API instead (PYTHONPATH=build/python):

    python3 examples/pytorch/distributed_gloo.py --steps=3 --profile-dir=traces
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
    parser.add_argument("--slow-rank", type=int, default=None,
                        help="this rank computes --extra-compute-ms more per step (a straggler)")
    parser.add_argument("--extra-compute-ms", type=float, default=50.0)
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
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    issued = {}

    def count(op_type, times=1):
        issued[op_type] = issued.get(op_type, 0) + times

    with rank_profiler(args, rank) as profiler:
        for _ in range(args.steps):
            if rank == args.slow_rank:
                extra_compute(args.extra_compute_ms)
            train_step(model, optimizer, rank, world, count)
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
    return aiprof.profiler.profile(activities=[aiprof.profiler.ProfilerActivity.CPU],
                                   record_shapes=True, on_trace_ready=handler)


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


def main(argv):
    args = parse_args(argv)
    if args.rank is None and "RANK" in os.environ and "MASTER_PORT" in os.environ:
        args.rank = int(os.environ["RANK"])  # started by torchrun
    if args.rank is not None:
        return run_rank(args)
    return spawn_ranks(args) if args.spawn else launch_ranks(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
