#include "ngraphbench/measure/offline.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace ngraphbench {

namespace {

// What the streams' threads share: the release into the timed window and the first failure.
class Release {
 public:
  explicit Release(size_t count) : count_(count) {}

  // A stream is warm (or failed); blocks until all are and the window has opened.
  void ArriveAndWait() {
    std::unique_lock<std::mutex> lock(mutex_);
    ++arrived_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return released_; });
  }
  // The caller's side: waits for every stream (the caller's own too, `caller_arrives`, when it
  // runs one), then opens the window at `start`.
  void Open(const std::function<MeasureClock::time_point()>& open, bool caller_arrives) {
    std::unique_lock<std::mutex> lock(mutex_);
    arrived_ += caller_arrives ? 1 : 0;
    changed_.wait(lock, [&] { return arrived_ == count_; });
    start_ = open();
    released_ = true;
    changed_.notify_all();
  }
  MeasureClock::time_point start() const { return start_; }  // after the release

  // The first failure only; true for it (whose stream then stops the others).
  bool Fail(std::exception_ptr error) {
    std::lock_guard<std::mutex> lock(mutex_);
    failed_.store(true);
    if (error_) return false;
    error_ = error;
    return true;
  }
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  std::exception_ptr error() const { return error_; }

 private:
  const size_t count_;
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t arrived_ = 0;
  bool released_ = false;
  MeasureClock::time_point start_;
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};
};

}  // namespace

MeasureClock::time_point TimedRequest(RunContext& context, const std::vector<HostTensor>& inputs,
                                      TimingBoundary boundary, int64_t& latency_ns) {
  const auto start = MeasureClock::now();
  if (boundary == TimingBoundary::kCompute) {
    context.Run();
  } else {
    context.SetInputs(inputs);
    context.Run();
    std::vector<HostTensor> outputs = context.GetOutputs();
  }
  const auto end = MeasureClock::now();
  latency_ns = ElapsedNs(start, end);
  return end;
}

StreamsRun RunStreams(const std::vector<RunContext*>& contexts,
                      const std::vector<HostTensor>& inputs, const MeasureOptions& options,
                      const StreamHooks& hooks) {
  if (contexts.empty()) throw std::invalid_argument("streams: no execution contexts");
  StreamsRun run;
  for (size_t i = 0; i < contexts.size(); ++i) {
    contexts[i]->SetInputs(inputs);
    int64_t first_ns = 0;
    TimedRequest(*contexts[i], inputs, options.boundary, first_ns);
    if (i == 0) run.first_run_ms = static_cast<double>(first_ns) / 1e6;
    if (options.capture_first_outputs) run.first_outputs.push_back(contexts[i]->GetOutputs());
  }

  const bool capped = options.max_time.count() > 0;
  Release release(contexts.size());
  // `open` may fail too (a load generator that cannot start): the streams are released all the
  // same, told to stop, and joined before the error goes on.
  const std::function<MeasureClock::time_point()> open = [&] {
    try {
      return hooks.open();
    } catch (...) {
      if (release.Fail(std::current_exception()) && hooks.stop) hooks.stop();
      return MeasureClock::now();
    }
  };
  // One stream runs on the calling thread, several each on a thread of its own. A thread keeps
  // the OpenMP team of its parallel regions (LibTorch's and Inductor's intra-op threads), and
  // the caller has one from the runs above: one stream on a new thread would add a team, more
  // OpenMP threads than cores, and libgomp then lets idle team threads spin only briefly before
  // sleeping, so each parallel region waits for them to wake (one LibTorch stream ran deit_tiny
  // at 0.6x the single-stream throughput so). Several streams stay off the calling thread: with
  // the first stream on it, torchscript and inductor ran resnet18 on 2 streams 35-45% slower,
  // for a reason not found yet.
  const bool on_caller = contexts.size() == 1;
  // The caller's stream opens the window once every stream is warm.
  const auto arrive = [&](size_t i) {
    if (on_caller && i == 0) {
      release.Open(open, /*caller_arrives=*/true);
    } else {
      release.ArriveAndWait();
    }
  };
  std::vector<int64_t> warmups(contexts.size(), 0);
  auto stream = [&](size_t i) {
    RunContext& context = *contexts[i];
    bool arrived = false;
    try {
      const auto warmup_start = MeasureClock::now();
      int64_t unused = 0;
      while (warmups[i] < options.warmup && !release.failed() &&
             !(capped && MeasureClock::now() - warmup_start >= options.max_time)) {
        TimedRequest(context, inputs, options.boundary, unused);
        ++warmups[i];
      }
      arrived = true;
      arrive(i);
      if (!release.failed()) hooks.serve(i, context, release.start());
    } catch (...) {
      if (release.Fail(std::current_exception()) && hooks.stop) hooks.stop();
      if (!arrived) arrive(i);
    }
  };

  std::vector<std::thread> threads;
  threads.reserve(contexts.size());
  for (size_t i = on_caller ? 1 : 0; i < contexts.size(); ++i) threads.emplace_back(stream, i);
  if (on_caller) {
    stream(0);
  } else {
    release.Open(open, /*caller_arrives=*/false);
  }
  for (std::thread& t : threads) t.join();
  if (release.error()) std::rethrow_exception(release.error());
  run.warmup_runs = *std::min_element(warmups.begin(), warmups.end());
  run.start = release.start();
  return run;
}

OfflineMeasurement MeasureOffline(const std::vector<RunContext*>& contexts,
                                  const std::vector<HostTensor>& inputs, int64_t batch_size,
                                  const MeasureOptions& options) {
  if (contexts.empty()) throw std::invalid_argument("offline: no execution contexts");
  if (options.stop != StopRule::kFixed) {
    throw std::invalid_argument("offline: only the fixed stop rule applies");
  }
  OfflineMeasurement m;
  m.streams = static_cast<int64_t>(contexts.size());
  // Before the first run, as in Measure(): NVML may take a second to load.
  SystemSampler sampler(options.sample_period, kPowercapRoot, options.gpu);

  const bool capped = options.max_time.count() > 0;
  const int64_t min_repeats = std::min(options.repeats, options.min_timed_repeats);
  std::atomic<int64_t> completed{0};  // timed requests of all streams, which the stop rule reads
  std::atomic<bool> stopped{false};
  std::atomic<const char*> reason{nullptr};
  // Sets the reason once: the first stream to see the rule met names it.
  auto stop = [&](const char* why) {
    const char* none = nullptr;
    reason.compare_exchange_strong(none, why);
    stopped.store(true);
  };
  std::vector<std::vector<int64_t>> latencies(contexts.size());
  std::vector<MeasureClock::time_point> last_end(contexts.size());

  StreamHooks hooks;
  hooks.open = [&] {
    sampler.Start();
    return MeasureClock::now();
  };
  hooks.stop = [&] { stop("error"); };
  hooks.serve = [&](size_t i, RunContext& context, MeasureClock::time_point start) {
    last_end[i] = start;
    latencies[i].reserve(static_cast<size_t>(options.repeats / m.streams + 1));
    while (!stopped.load(std::memory_order_relaxed)) {
      int64_t ns = 0;
      last_end[i] = TimedRequest(context, inputs, options.boundary, ns);
      latencies[i].push_back(ns);
      const int64_t n = completed.fetch_add(1) + 1;
      const auto elapsed = last_end[i] - start;
      if (n >= min_repeats && capped && elapsed >= options.max_time) {
        stop("time");
      } else if (n >= options.max_repeats && n >= options.repeats) {
        stop("max_repeats");
      } else if (n >= options.repeats &&
                 (options.min_time.count() <= 0 || elapsed >= options.min_time)) {
        stop("repeats");
      }
    }
  };
  StreamsRun run = RunStreams(contexts, inputs, options, hooks);
  m.system = sampler.Stop();
  m.first_run_ms = run.first_run_ms;
  m.first_outputs = std::move(run.first_outputs);
  m.warmup_runs = run.warmup_runs;

  const auto end = *std::max_element(last_end.begin(), last_end.end());
  m.window_s = std::chrono::duration<double>(end - run.start).count();
  for (const auto& stream_ns : latencies) {
    m.requests_per_stream.push_back(static_cast<int64_t>(stream_ns.size()));
    m.latencies_ns.insert(m.latencies_ns.end(), stream_ns.begin(), stream_ns.end());
  }
  if (m.window_s > 0) {
    m.samples_per_s =
        static_cast<double>(batch_size) * static_cast<double>(m.latencies_ns.size()) / m.window_s;
  }
  m.stop_reason = reason.load() ? reason.load() : "repeats";
  return m;
}

}  // namespace ngraphbench
