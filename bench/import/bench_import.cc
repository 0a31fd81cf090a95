// Kineto JSON import throughput and peak memory (issue 28: >= 200 MB/s of uncompressed JSON on
// one core, peak memory <= the JSON's size). The trace is generated with aiprof's own Kineto
// writer (src/export/timeline/trace_json.h) from a model shaped like a GPU training step:
// per operator a cpu_op with Kineto's arguments (External id, Record function id, Sequence
// number, Input Dims, Input type), a cudaLaunchKernel with an ac2g flow to its kernel (the 13
// kernel arguments Kineto writes), an occasional memcpy and allocator instant, a
// ProfilerStep#N range per step. Each import runs in a fresh child (one thread: a trace is
// one file), so its wall time, CPU time and peak RSS are its own.
//
//   bench_import [--bytes=N] [--runs=R] [--dir=PATH] [--keep] [--gzip]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "export/timeline/trace_json.h"
#include "model/importer.h"
#include "model/nesting.h"
#include "model/parser.h"

namespace {

namespace fs = std::filesystem;
using aiprof::model::ImportContext;
using aiprof::model::Model;

constexpr uint32_t kPid = 3100, kTid = 3100, kDevice = 0;
constexpr int64_t kBase = 1'700'000'000'000'000'000;

const char* const kOps[] = {"aten::linear",  "aten::addmm", "aten::relu", "aten::layer_norm",
                            "aten::softmax", "aten::mul",   "aten::add",  "aten::matmul"};
const char* const kKernels[] = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3>)",
    "ampere_sgemm_128x64_tn",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, "
    "float, float const*, float const*, float const*, float*, float*, float*)",
    "void cunn_SoftMaxForward<4, float, float, float, cunn::SoftMaxForwardEpilogue>(float*, "
    "float const*, int)"};

// One model of `operators` operators in steps of 200, written as one Kineto trace.
void Generate(const std::string& path, uint64_t operators) {
  Model m;
  ImportContext c(&m);
  aiprof::model::ProcessTable& p = m.processes;
  auto process = [&](uint32_t pid, int32_t device, const std::string& name,
                     const std::string& label, int64_t sort) {
    p.pid.push_back(pid);
    p.host.push_back(m.strings.Intern("bench-host"));
    p.name.push_back(m.strings.Intern(name));
    p.label.push_back(m.strings.Intern(label));
    p.sort_index.push_back(sort);
    p.device_id.push_back(device);
    p.rank.push_back(0);
    p.metadata.emplace_back(device < 0 ? R"({"hostname":"bench-host","rank":0,"world_size":1})"
                                       : "");
    return static_cast<uint32_t>(p.size() - 1);
  };
  const uint32_t host = process(kPid, -1, "python3 train.py", "CPU", kPid);
  const uint32_t gpu = process(kDevice, kDevice, "GPU 0", "GPU 0", 0x1000000);
  const uint32_t host_track = c.MainTrack(c.Thread(host, kTid));
  const uint32_t stream_track = c.MainTrack(c.Thread(gpu, 7));
  const auto cpu_op = c.Intern("cpu_op"), annotation = c.Intern("user_annotation");
  const auto runtime = c.Intern("cuda_runtime"), kernel = c.Intern("kernel");
  const auto memcpy = c.Intern("gpu_memcpy"), instant = c.Intern("cpu_instant_event");
  const auto ac2g = c.Intern("ac2g"), launch = c.Intern("cudaLaunchKernel");
  int64_t t = kBase;
  int64_t gpu_free = kBase;
  uint64_t correlation = 1;
  for (uint64_t op = 0; op < operators;) {
    const int64_t step_start = t;
    const uint32_t step = c.AddSlice(host_track, step_start, aiprof::model::kOpenEnd,
                                     c.Intern("ProfilerStep#" + std::to_string(op / 200)),
                                     annotation, c.Args().Int("External id", op).Commit());
    for (int i = 0; i < 200 && op < operators; ++i, ++op) {
      const int64_t start = t + 1'000;
      const uint32_t args = c.Args()
                                .Int("External id", op + 1)
                                .Int("Record function id", 0)
                                .Int("Sequence number", op)
                                .Int("Fwd thread id", 0)
                                .Json("Input Dims", "[[32, 1024], [1024, 4096], [4096]]")
                                .Json("Input type", "[\"float\", \"float\", \"float\"]")
                                .Commit();
      c.AddSlice(host_track, start, start + 9'123, c.Intern(kOps[op % 8]), cpu_op, args);
      const int64_t call = start + 2'000;
      const uint32_t call_args = c.Args()
                                     .Int("External id", op + 1)
                                     .Int("cbid", 211)
                                     .Int("correlation", correlation)
                                     .Commit();
      const uint32_t call_slice =
          c.AddSlice(host_track, call, call + 4'567, launch, runtime, call_args);
      const int64_t kernel_start = std::max(gpu_free, call + 5'000);
      const uint32_t kernel_args = c.Args()
                                       .Int("External id", op + 1)
                                       .Int("queued", 0)
                                       .Int("device", kDevice)
                                       .Int("context", 1)
                                       .Int("stream", 7)
                                       .Int("correlation", correlation)
                                       .Int("registers per thread", 32)
                                       .Int("shared memory", 0)
                                       .Double("blocks per SM", 0.484848)
                                       .Double("warps per SM", 15.515152)
                                       .Json("grid", "[64, 1, 1]")
                                       .Json("block", "[256, 1, 1]")
                                       .Int("est. achieved occupancy %", 24)
                                       .Commit();
      const uint32_t kernel_slice = c.AddSlice(stream_track, kernel_start, kernel_start + 7'891,
                                               c.Intern(kKernels[op % 4]), kernel, kernel_args);
      m.flows.id.push_back(correlation);
      m.flows.from_slice.push_back(call_slice);
      m.flows.to_slice.push_back(kernel_slice);
      m.flows.category.push_back(ac2g);
      gpu_free = kernel_start + 8'000;
      ++correlation;
      if (op % 50 == 0) {
        c.AddSlice(
            stream_track, gpu_free, gpu_free + 3'000, c.Intern("Memcpy HtoD (Pinned -> Device)"),
            memcpy,
            c.Args().Int("bytes", 1 << 20).Double("memory bandwidth (GB/s)", 349.5).Commit());
        gpu_free += 3'000;
        c.AddInstant(host_track, start + 500, c.Intern("[memory]"), instant,
                     c.Args()
                         .Int("Device Type", 1)
                         .Int("Device Id", 0)
                         .Int("Addr", 139'800'000 + op)
                         .Int("Bytes", 1 << 20)
                         .Int("Total Allocated", 1 << 28)
                         .Int("Total Reserved", 1 << 29)
                         .Commit());
      }
      t += 10'000;
    }
    c.EndSlice(step, t + 500);
    t += 1'000;
  }
  aiprof::model::ResolveNesting(m);
  std::string error;
  if (!aiprof::exporter::WriteTraceJson(m, path, &error)) {
    std::fprintf(stderr, "bench_import: %s\n", error.c_str());
    std::exit(1);
  }
}

struct Sample {
  double wall_s = 0, cpu_s = 0;
  long max_rss_kb = 0;
};

// Runs `work` in a child and returns its wall time, CPU time and peak RSS.
Sample Measure(const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child == 0) {
    work();
    _exit(0);
  }
  int status = 0;
  rusage usage{};
  wait4(child, &status, 0, &usage);
  Sample sample;
  sample.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "bench_import: the measured child failed\n");
    std::exit(1);
  }
  sample.cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                 static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  sample.max_rss_kb = usage.ru_maxrss;
  return sample;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

void Compress(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  gzFile out = gzopen(to.c_str(), "wb6");
  std::vector<char> block(1 << 20);
  while (in.read(block.data(), static_cast<std::streamsize>(block.size())) || in.gcount() > 0) {
    gzwrite(out, block.data(), static_cast<unsigned>(in.gcount()));
  }
  gzclose(out);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t bytes = 1'000'000'000;
  int runs = 3;
  bool keep = false, gzip = false;
  fs::path dir = fs::temp_directory_path() / ("aiprof_bench_import_" + std::to_string(getpid()));
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--bytes=", 0) == 0) {
      bytes = std::stoull(arg.substr(8));
    } else if (arg.rfind("--runs=", 0) == 0) {
      runs = std::max(1, std::stoi(arg.substr(7)));
    } else if (arg.rfind("--dir=", 0) == 0) {
      dir = arg.substr(6);
    } else if (arg == "--keep") {
      keep = true;
    } else if (arg == "--gzip") {
      gzip = true;
    } else {
      std::fprintf(stderr,
                   "usage: bench_import [--bytes=N] [--runs=R] [--dir=PATH] [--keep] "
                   "[--gzip]\n");
      return 2;
    }
  }
  fs::create_directories(dir);
  const std::string trace = (dir / "bench.pt.trace.json").string();
  // ~1,090 bytes of JSON per operator (cpu_op, launch, kernel, two flow events).
  const uint64_t operators = std::max<uint64_t>(bytes / 1'050, 1'000);
  if (!fs::exists(trace) || fs::file_size(trace) < bytes * 9 / 10) {
    // Generated in a child so that the measured children do not inherit its memory.
    Measure([&] { Generate(trace, operators); });
  }
  const uint64_t json_bytes = fs::file_size(trace);
  std::string input = trace;
  if (gzip) {
    input = trace + ".gz";
    if (!fs::exists(input)) Compress(trace, input);
  }
  uint64_t slices = 0;
  std::vector<double> wall, cpu, rss;
  for (int run = 0; run < runs; ++run) {
    const Sample sample = Measure([&] {
      // Left alive: freeing it is not part of the import.
      const Model* m = new Model(aiprof::model::ParseFiles({input}, {1}));
      if (m->files.empty() || !m->files[0].report.clean() || m->slices.size() == 0) _exit(3);
    });
    wall.push_back(sample.wall_s);
    cpu.push_back(sample.cpu_s);
    rss.push_back(static_cast<double>(sample.max_rss_kb) * 1024.0);
  }
  {
    const Model m = aiprof::model::ParseFiles({input}, {1});
    slices = m.slices.size();
  }
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  const double mb = static_cast<double>(json_bytes) / 1e6;
  std::printf("trace: %s%s, %.1f MB of JSON (%llu slices)\n", input.c_str(), gzip ? " (gzip)" : "",
              mb, static_cast<unsigned long long>(slices));
  std::printf(
      "import (%d runs, one thread): median %.2f s wall, %.2f s CPU = %.0f MB/s of JSON;"
      " peak RSS %.0f MB = %.2f x the JSON; load %.2f\n",
      runs, Median(wall), Median(cpu), mb / Median(wall), Median(rss) / 1e6,
      Median(rss) / static_cast<double>(json_bytes), load[0]);
  if (!keep) fs::remove_all(dir);
  return 0;
}
