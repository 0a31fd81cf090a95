#!/usr/bin/python3
"""A small PyTorch training job for trying aiprof on CPU (Debian python3-torch).

Trains an MLP and a small CNN on synthetic data with a DataLoader, so a profile shows
operators of forward, backward and the optimizer, and (with --workers>0) data-loader
worker processes. Each iteration, batch fetch included, is a "ProfilerStep#N" range, as
torch.profiler's step() marks it, so per-step analyses have steps.

Knobs that make a known bottleneck (the workloads of `aiprof advise`'s tests):
  --load-delay-ms=MS   each batch takes MS ms more to load (slow storage or decoding):
                       data-loading bound;
  --model=tiny         a model of many tiny element-wise operators: host (dispatch) bound;
  --hidden=N --batch=N a wide MLP with a large batch: compute bound.

    aiprof --output=out --task-time=on python3 examples/pytorch/train.py --steps=20
"""
import argparse
import sys
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class SyntheticImages(Dataset):
    """Gaussian blobs per class, generated on the fly so no download is needed."""

    def __init__(self, size, classes=10, image=16, seed=0):
        generator = torch.Generator().manual_seed(seed)
        self.centres = torch.randn(classes, 1, image, image, generator=generator) * 2
        self.labels = torch.randint(0, classes, (size,), generator=generator)
        self.seed = seed

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        label = int(self.labels[index])
        generator = torch.Generator().manual_seed(self.seed * 1_000_003 + index)
        image = self.centres[label] + torch.randn(self.centres[label].shape, generator=generator)
        return image, label


class SmallCnn(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Linear(16 * 4 * 4, classes)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


class TinyOps(nn.Module):
    """Hundreds of element-wise operators on a tiny tensor per step: the time goes to
    dispatching operators from Python, not to computing them."""

    def __init__(self, classes=10, image=16, depth=100):
        super().__init__()
        self.project = nn.Linear(image * image, classes)
        self.scales = nn.Parameter(torch.ones(depth, classes))
        self.depth = depth

    def forward(self, x):
        y = self.project(torch.flatten(x, 1))
        for i in range(self.depth):
            y = torch.tanh(y * self.scales[i] + 0.01)
        return y


class Mlp(nn.Module):
    def __init__(self, classes=10, image=16, hidden=128):
        super().__init__()
        self.layers = nn.Sequential(nn.Flatten(), nn.Linear(image * image, hidden), nn.ReLU(),
                                    nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, classes))

    def forward(self, x):
        return self.layers(x)


class SlowCollate:
    """Batches samples as the default collate does, taking `delay_s` longer per batch (in
    the loader's worker when there are workers)."""

    def __init__(self, delay_s):
        self.delay_s = delay_s

    def __call__(self, samples):
        if self.delay_s > 0:
            time.sleep(self.delay_s)
        return torch.utils.data.default_collate(samples)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30, help="training steps per model")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--model", choices=["mlp", "cnn", "both", "tiny"], default="both")
    parser.add_argument("--hidden", type=int, default=128, help="hidden width of the MLP")
    parser.add_argument("--load-delay-ms", type=float, default=0.0,
                        help="extra milliseconds to load each batch (a slow input pipeline)")
    parser.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    parser.add_argument("--threads", type=int, default=2, help="torch intra-op threads")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.batch < 1 or args.workers < 0 or args.threads < 1 or args.hidden < 1:
        parser.error("--steps, --batch, --hidden and --threads must be >= 1, --workers >= 0")
    if args.load_delay_ms < 0:
        parser.error("--load-delay-ms must be >= 0")
    return args


def train(model, loader, steps):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    start = time.perf_counter()
    batches = iter(loader)
    for step in range(steps):
        with torch.autograd.profiler.record_function("ProfilerStep#%d" % step):
            try:
                images, labels = next(batches)
            except StopIteration:
                batches = iter(loader)
                images, labels = next(batches)
            with torch.autograd.profiler.record_function("forward"):
                loss = loss_fn(model(images), labels)
            with torch.autograd.profiler.record_function("backward"):
                optimizer.zero_grad()
                loss.backward()
            with torch.autograd.profiler.record_function("optimizer"):
                optimizer.step()
    elapsed = time.perf_counter() - start
    print(f"{type(model).__name__}: {steps} steps, last loss {loss.item():.4f}, "
          f"{1000 * elapsed / steps:.1f} ms/step")


def main(argv):
    args = parse_args(argv)
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    dataset = SyntheticImages(size=args.batch * args.steps)
    loader = DataLoader(dataset, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                        collate_fn=SlowCollate(args.load_delay_ms / 1000.0))
    models = {"mlp": [Mlp(hidden=args.hidden)], "cnn": [SmallCnn()],
              "both": [Mlp(hidden=args.hidden), SmallCnn()], "tiny": [TinyOps()]}[args.model]
    for model in models:
        train(model, loader, args.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
