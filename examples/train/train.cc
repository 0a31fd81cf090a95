// A small but real training job for trying aiprof: a two-layer MLP learns to classify
// points drawn from Gaussian clusters. A data-loader thread synthesises and normalises
// batches into a bounded queue; the main thread trains. Each phase (data wait, forward,
// backward, optimizer) is an mstx range and each iteration a step, so a profile shows
// where the time goes and when the loader cannot keep up.
//
//   train [--steps=N] [--batch=N] [--hidden=N] [--loaders=N] [--seed=N] [--slow-loader=MS]
//         [--prefetch=N] [--slow-op=PHASE:US] [--step-time]
//
// --slow-loader=MS makes each batch take MS ms more to load (a stand-in for slow storage or
// decoding), so the trainer waits for input: the data-preparation analysis shows it.
// --prefetch=N is how many loaded batches may wait for the trainer (default 4); with N at
// least --steps the loaders never block, so the trainer waits only for the first batch.
// --slow-op=PHASE:US makes one training phase (forward, backward or optimizer) compute US
// microseconds longer each step (a stand-in for a slower operator), so `aiprof compare`
// against a run without it ranks that phase first.
// --step-time prints the median duration of a training step (aiprofStepBegin to
// aiprofStepEnd, steady clock) at the end: a profiler's overhead on the job itself, without
// its start-up and export (bench/cpu_sampling/cpu_sampling_overhead.sh).
#include <aiprof/aiprof.h>
#include <aiprof/mstx.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kFeatures = 64;
constexpr int kClasses = 10;

struct Settings {
  int steps = 1000;
  int batch = 64;
  int hidden = 128;
  int loaders = 1;
  unsigned seed = 42;
  int slow_loader_ms = 0;
  int prefetch = 4;
  std::string slow_phase;  // forward, backward or optimizer; empty: none
  int slow_phase_us = 0;
  bool step_time = false;
};

// Keeps the CPU busy for `us` microseconds, as a slower operator would.
void Spin(int us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

void SlowPhase(const Settings& settings, const char* phase) {
  if (settings.slow_phase_us > 0 && settings.slow_phase == phase) Spin(settings.slow_phase_us);
}

struct Batch {
  std::vector<float> inputs;  // batch x kFeatures, row-major
  std::vector<int> labels;
};

// Bounded so a slow trainer holds the loaders back instead of piling up memory.
class BatchQueue {
 public:
  explicit BatchQueue(size_t capacity) : capacity_(capacity) {}
  void Push(Batch batch) {
    std::unique_lock lock(mutex_);
    not_full_.wait(lock, [&] { return batches_.size() < capacity_; });
    batches_.push_back(std::move(batch));
    not_empty_.notify_one();
  }
  Batch Pop() {
    std::unique_lock lock(mutex_);
    not_empty_.wait(lock, [&] { return !batches_.empty(); });
    Batch batch = std::move(batches_.front());
    batches_.pop_front();
    not_full_.notify_one();
    return batch;
  }

 private:
  size_t capacity_;
  std::mutex mutex_;
  std::condition_variable not_full_, not_empty_;
  std::deque<Batch> batches_;
};

// Cluster centres shared by every loader so all batches come from one distribution.
std::vector<float> MakeCentres(unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<float> normal(0.0f, 0.6f);
  std::vector<float> centres(kClasses * kFeatures);
  for (float& value : centres) value = normal(random);
  return centres;
}

void LoadBatches(int loader, int count, const Settings& settings, const std::vector<float>& centres,
                 BatchQueue* queue) {
  std::mt19937 random(settings.seed + 1000u * static_cast<unsigned>(loader + 1));
  std::normal_distribution<float> noise(0.0f, 2.0f);
  std::uniform_int_distribution<int> label_of(0, kClasses - 1);
  for (int i = 0; i < count; ++i) {
    mstxRangeId range = mstxRangeStartA("load_batch", nullptr);
    Batch batch;
    batch.inputs.resize(static_cast<size_t>(settings.batch) * kFeatures);
    batch.labels.resize(static_cast<size_t>(settings.batch));
    for (int row = 0; row < settings.batch; ++row) {
      int label = label_of(random);
      batch.labels[static_cast<size_t>(row)] = label;
      float* x = &batch.inputs[static_cast<size_t>(row) * kFeatures];
      float norm = 0;
      for (int f = 0; f < kFeatures; ++f) {
        x[f] = centres[static_cast<size_t>(label * kFeatures + f)] + noise(random);
        norm += x[f] * x[f];
      }
      // Augmentation stand-in: per-sample normalisation, as image pipelines do.
      float scale = 1.0f / std::sqrt(norm / kFeatures + 1e-6f);
      for (int f = 0; f < kFeatures; ++f) x[f] *= scale;
    }
    if (settings.slow_loader_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(settings.slow_loader_ms));
    }
    mstxRangeEnd(range);
    queue->Push(std::move(batch));
  }
}

struct Layer {
  int in, out;
  std::vector<float> weight, bias, grad_weight, grad_bias, velocity_weight, velocity_bias;
  Layer(int in_size, int out_size, std::mt19937* random)
      : in(in_size),
        out(out_size),
        weight(static_cast<size_t>(in_size * out_size)),
        bias(static_cast<size_t>(out_size)),
        grad_weight(weight.size()),
        grad_bias(bias.size()),
        velocity_weight(weight.size()),
        velocity_bias(bias.size()) {
    std::normal_distribution<float> init(0.0f, std::sqrt(2.0f / static_cast<float>(in_size)));
    for (float& w : weight) w = init(*random);
  }
  // y[b, o] = x[b, :] . W[:, o] + bias[o]
  void Forward(const float* x, int batch, float* y) const {
    for (int b = 0; b < batch; ++b) {
      float* row = y + static_cast<size_t>(b) * out;
      std::copy(bias.begin(), bias.end(), row);
      for (int i = 0; i < in; ++i) {
        float xi = x[static_cast<size_t>(b) * in + i];
        const float* w = &weight[static_cast<size_t>(i) * out];
        for (int o = 0; o < out; ++o) row[o] += xi * w[o];
      }
    }
  }
  // Accumulates parameter gradients; writes dx when asked.
  void Backward(const float* x, const float* dy, int batch, float* dx) {
    std::fill(grad_weight.begin(), grad_weight.end(), 0.0f);
    std::fill(grad_bias.begin(), grad_bias.end(), 0.0f);
    for (int b = 0; b < batch; ++b) {
      const float* dyb = dy + static_cast<size_t>(b) * out;
      for (int o = 0; o < out; ++o) grad_bias[static_cast<size_t>(o)] += dyb[o];
      for (int i = 0; i < in; ++i) {
        float xi = x[static_cast<size_t>(b) * in + i];
        float* gw = &grad_weight[static_cast<size_t>(i) * out];
        const float* w = &weight[static_cast<size_t>(i) * out];
        float sum = 0;
        for (int o = 0; o < out; ++o) {
          gw[o] += xi * dyb[o];
          sum += w[o] * dyb[o];
        }
        if (dx) dx[static_cast<size_t>(b) * in + i] = sum;
      }
    }
  }
  void Step(float learning_rate, float momentum) {
    for (size_t i = 0; i < weight.size(); ++i) {
      velocity_weight[i] = momentum * velocity_weight[i] - learning_rate * grad_weight[i];
      weight[i] += velocity_weight[i];
    }
    for (size_t i = 0; i < bias.size(); ++i) {
      velocity_bias[i] = momentum * velocity_bias[i] - learning_rate * grad_bias[i];
      bias[i] += velocity_bias[i];
    }
  }
};

bool ParseFlag(const char* arg, const char* name, long* value) {
  size_t length = std::strlen(name);
  if (std::strncmp(arg, name, length) != 0 || arg[length] != '=') return false;
  char* end = nullptr;
  *value = std::strtol(arg + length + 1, &end, 10);
  return end && *end == '\0';
}

// "--slow-op=PHASE:US" with a known phase and 1..1000000 microseconds.
bool ParseSlowOp(const char* arg, Settings* settings) {
  constexpr const char* kFlag = "--slow-op=";
  if (std::strncmp(arg, kFlag, std::strlen(kFlag)) != 0) return false;
  const std::string value = arg + std::strlen(kFlag);
  const size_t colon = value.find(':');
  if (colon == std::string::npos) return false;
  const std::string phase = value.substr(0, colon);
  if (phase != "forward" && phase != "backward" && phase != "optimizer") return false;
  char* end = nullptr;
  const long us = std::strtol(value.c_str() + colon + 1, &end, 10);
  if (end == value.c_str() + colon + 1 || *end != '\0' || us < 1 || us > 1000000) return false;
  settings->slow_phase = phase;
  settings->slow_phase_us = static_cast<int>(us);
  return true;
}

bool ParseArgs(int argc, char** argv, Settings* settings) {
  for (int i = 1; i < argc; ++i) {
    long value = 0;
    if (ParseSlowOp(argv[i], settings)) continue;
    if (std::strcmp(argv[i], "--step-time") == 0) {
      settings->step_time = true;
      continue;
    }
    if (ParseFlag(argv[i], "--steps", &value) && value > 0)
      settings->steps = static_cast<int>(value);
    else if (ParseFlag(argv[i], "--batch", &value) && value > 0)
      settings->batch = static_cast<int>(value);
    else if (ParseFlag(argv[i], "--hidden", &value) && value > 0)
      settings->hidden = static_cast<int>(value);
    else if (ParseFlag(argv[i], "--loaders", &value) && value > 0 && value <= 16)
      settings->loaders = static_cast<int>(value);
    else if (ParseFlag(argv[i], "--seed", &value) && value >= 0)
      settings->seed = static_cast<unsigned>(value);
    else if (ParseFlag(argv[i], "--slow-loader", &value) && value >= 0 && value <= 10000)
      settings->slow_loader_ms = static_cast<int>(value);
    else if (ParseFlag(argv[i], "--prefetch", &value) && value > 0 && value <= 100000)
      settings->prefetch = static_cast<int>(value);
    else {
      std::fprintf(stderr,
                   "train: bad argument '%s'\nusage: train [--steps=N] [--batch=N] "
                   "[--hidden=N] [--loaders=1..16] [--seed=N] [--slow-loader=MS] [--prefetch=N] "
                   "[--slow-op=forward|backward|optimizer:US] [--step-time]\n",
                   argv[i]);
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  if (!ParseArgs(argc, argv, &settings)) return 2;
  const int batch = settings.batch;
  std::vector<float> centres = MakeCentres(settings.seed);
  BatchQueue queue(static_cast<size_t>(settings.prefetch));
  std::vector<std::thread> loaders;
  for (int loader = 0; loader < settings.loaders; ++loader) {
    int count = settings.steps / settings.loaders + (loader < settings.steps % settings.loaders);
    loaders.emplace_back(LoadBatches, loader, count, std::cref(settings), std::cref(centres),
                         &queue);
  }

  std::mt19937 random(settings.seed);
  Layer hidden(kFeatures, settings.hidden, &random);
  Layer output(settings.hidden, kClasses, &random);
  std::vector<float> h(static_cast<size_t>(batch * settings.hidden));
  std::vector<float> logits(static_cast<size_t>(batch * kClasses));
  std::vector<float> dlogits(logits.size()), dh(h.size());
  const float learning_rate = 0.05f, momentum = 0.9f;
  double loss_sum = 0;
  int correct = 0, seen = 0, steps_in_report = 0;
  std::vector<double> step_us;
  step_us.reserve(static_cast<size_t>(settings.steps));

  for (int step = 0; step < settings.steps; ++step) {
    const auto step_start = std::chrono::steady_clock::now();
    aiprofStepBegin(static_cast<uint64_t>(step));
    mstxRangePushA("data_wait", nullptr);
    Batch data = queue.Pop();
    mstxRangePop();

    mstxRangePushA("forward", nullptr);
    hidden.Forward(data.inputs.data(), batch, h.data());
    for (float& value : h) value = std::max(value, 0.0f);  // ReLU
    output.Forward(h.data(), batch, logits.data());
    double loss = 0;
    for (int b = 0; b < batch; ++b) {  // softmax cross-entropy, gradient folded in
      float* z = &logits[static_cast<size_t>(b) * kClasses];
      float* dz = &dlogits[static_cast<size_t>(b) * kClasses];
      float top = *std::max_element(z, z + kClasses);
      float sum = 0;
      for (int c = 0; c < kClasses; ++c) sum += std::exp(z[c] - top);
      int label = data.labels[static_cast<size_t>(b)];
      for (int c = 0; c < kClasses; ++c) {
        float p = std::exp(z[c] - top) / sum;
        dz[c] = (p - (c == label ? 1.0f : 0.0f)) / static_cast<float>(batch);
      }
      loss -= std::log(std::exp(z[label] - top) / sum);
      correct += static_cast<int>(std::max_element(z, z + kClasses) - z) == label;
    }
    loss_sum += loss / batch;
    seen += batch;
    ++steps_in_report;
    SlowPhase(settings, "forward");
    mstxRangePop();

    mstxRangePushA("backward", nullptr);
    output.Backward(h.data(), dlogits.data(), batch, dh.data());
    for (size_t i = 0; i < dh.size(); ++i) dh[i] = h[i] > 0 ? dh[i] : 0.0f;
    hidden.Backward(data.inputs.data(), dh.data(), batch, nullptr);
    SlowPhase(settings, "backward");
    mstxRangePop();

    mstxRangePushA("optimizer", nullptr);
    hidden.Step(learning_rate, momentum);
    output.Step(learning_rate, momentum);
    SlowPhase(settings, "optimizer");
    mstxRangePop();
    aiprofStepEnd(static_cast<uint64_t>(step));
    step_us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - step_start)
            .count());

    if ((step + 1) % 100 == 0 || step + 1 == settings.steps) {
      std::printf("step %d: loss %.4f, accuracy %.1f%%\n", step + 1, loss_sum / steps_in_report,
                  100.0 * correct / seen);
      mstxMarkA("checkpoint", nullptr);
      loss_sum = 0;
      correct = seen = steps_in_report = 0;
    }
  }
  for (std::thread& loader : loaders) loader.join();
  if (settings.step_time) {
    auto middle = step_us.begin() + static_cast<std::ptrdiff_t>(step_us.size() / 2);
    std::nth_element(step_us.begin(), middle, step_us.end());
    std::printf("median step time: %.2f us over %zu steps\n", *middle, step_us.size());
  }
  return 0;
}
