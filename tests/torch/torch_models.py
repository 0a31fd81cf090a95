"""Small real training loops shared by the torch tests (CPU, deterministic)."""

import collections
import gc

import torch


def mlp_step():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(16, 32), torch.randint(0, 10, (16,))

    def step():
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()

    return step


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.conv2 = torch.nn.Conv2d(4, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.bn(self.conv1(x))), 2)
        x = torch.nn.functional.max_pool2d(torch.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


def cnn_step():
    torch.manual_seed(0)
    model = SmallCnn()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = torch.randn(8, 1, 16, 16), torch.randint(0, 10, (8,))

    def step():
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()

    return step


def profile_marked_mlp_window(handler, metadata, metadata_json=None, **options):
    """Four MLP training steps, each with an mstx mark and range and a gc.collect, profiled
    with every kind of CPU data on (shapes, memory, stacks, modules, markers, GC) and a
    schedule of one warm-up and two active steps; options add to or override the profile's
    arguments. metadata: add_metadata pairs; metadata_json: add_metadata_json pairs (JSON
    text). Returns the profile."""
    import aiprof
    import aiprof.profiler as aiprof_profiler

    step = mlp_step()
    config = aiprof_profiler._ExperimentalConfig(msprof_tx=True, gc_detect_threshold=0)
    arguments = dict(activities=[aiprof_profiler.ProfilerActivity.CPU],
                     schedule=aiprof_profiler.schedule(wait=0, warmup=1, active=2, repeat=1),
                     on_trace_ready=handler, record_shapes=True, profile_memory=True,
                     with_stack=True, with_modules=True, experimental_config=config)
    arguments.update(options)
    with aiprof_profiler.profile(**arguments) as prof:
        for key, value in metadata.items():
            prof.add_metadata(key, value)
        for key, value in (metadata_json or {}).items():
            prof.add_metadata_json(key, value)
        for _ in range(4):
            aiprof.mstx.mark("step begins")
            with aiprof.mstx.mstx_range("train step"):
                step()
            gc.collect()
            prof.step()
    return prof


def counts_per_step(events):
    """events: (name, thread, start, end). Returns [Counter of operator names] for each
    ProfilerStep range in time order (torch.profiler renames them "ProfilerStep*")."""
    steps = sorted((start, end, thread) for name, thread, start, end in events
                   if name.startswith("ProfilerStep"))
    result = []
    for start, end, thread in steps:
        result.append(collections.Counter(
            name for name, t, s, _e in events
            if t == thread and start <= s <= end and not name.startswith("ProfilerStep")))
    return result
