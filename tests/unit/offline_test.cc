// The offline scenario's harness (measure/offline.h): contexts run concurrently, each on its
// own thread, and the counts, the window and samples/s add up.
#include "ngraphbench/measure/offline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <stdexcept>
#include <thread>

namespace ngraphbench {
namespace {

// Requests in flight over every context of one test, and the most seen at once.
struct InFlight {
  std::atomic<int> now{0}, peak{0};
};

// Sleeps `run_time` per Run() (a sleep, so that streams overlap however busy the machine's
// cores are); its outputs are one value, its id.
class SleepingContext : public RunContext {
 public:
  SleepingContext(int id, std::chrono::microseconds run_time, InFlight& in_flight)
      : id_(id), run_time_(run_time), in_flight_(in_flight) {}
  void SetInputs(const std::vector<HostTensor>&) override { ++set_inputs; }
  void Run() override {
    const int now = ++in_flight_.now;
    for (int peak = in_flight_.peak; now > peak && !in_flight_.peak.compare_exchange_weak(peak, now);) {
    }
    if (fail_at >= 0 && runs == fail_at) {
      --in_flight_.now;
      throw std::runtime_error("context " + std::to_string(id_) + " failed");
    }
    std::this_thread::sleep_for(run_time_);
    ++runs;
    --in_flight_.now;
  }
  std::vector<HostTensor> GetOutputs() override {
    return {HostTensor{{1}, {static_cast<float>(id_)}}};
  }
  std::atomic<int> runs{0};
  int set_inputs = 0;
  int fail_at = -1;  // the run (0-based, counting the first) that throws; -1: none

 private:
  int id_;
  std::chrono::microseconds run_time_;
  InFlight& in_flight_;
};

TEST(Offline, TwoStreamsRunConcurrentlyAndTheCountsAddUp) {
  InFlight in_flight;
  SleepingContext a(0, std::chrono::milliseconds(5), in_flight);
  SleepingContext b(1, std::chrono::milliseconds(5), in_flight);
  MeasureOptions options;
  options.warmup = 2;
  options.repeats = 20;
  options.sample_period = std::chrono::milliseconds(0);
  options.capture_first_outputs = true;
  const OfflineMeasurement m = MeasureOffline({&a, &b}, {}, /*batch_size=*/4, options);

  EXPECT_EQ(m.streams, 2);
  EXPECT_EQ(in_flight.peak.load(), 2);  // both streams' requests were in flight at once
  EXPECT_EQ(m.warmup_runs, 2);
  EXPECT_EQ(a.set_inputs, 1);  // placed once per context, outside the clock
  EXPECT_EQ(b.set_inputs, 1);
  ASSERT_EQ(m.requests_per_stream.size(), 2u);
  const int64_t timed = m.requests_per_stream[0] + m.requests_per_stream[1];
  EXPECT_EQ(static_cast<int64_t>(m.latencies_ns.size()), timed);
  // The stop rule counts both streams' requests: 20, and at most one more, the other stream's
  // request in flight when the 20th ended.
  EXPECT_GE(timed, 20);
  EXPECT_LE(timed, 21);
  EXPECT_GE(m.requests_per_stream[0], 1);
  EXPECT_GE(m.requests_per_stream[1], 1);
  // Every run of a context: its first, its warmup, its timed requests.
  EXPECT_EQ(a.runs + b.runs, 2 + 2 * 2 + timed);
  EXPECT_EQ(m.stop_reason, "repeats");
  // samples/s is batch x requests over the window, and the window is shorter than the
  // requests' latencies end to end: they overlapped.
  EXPECT_DOUBLE_EQ(m.samples_per_s, 4.0 * static_cast<double>(timed) / m.window_s);
  const double summed_s =
      static_cast<double>(std::accumulate(m.latencies_ns.begin(), m.latencies_ns.end(),
                                          int64_t{0})) / 1e9;
  EXPECT_LT(m.window_s, 0.8 * summed_s);
  for (int64_t ns : m.latencies_ns) EXPECT_GE(ns, 5'000'000);
  EXPECT_GE(m.first_run_ms, 5.0);
  // Each stream's first outputs, in stream order, for the output check.
  ASSERT_EQ(m.first_outputs.size(), 2u);
  EXPECT_EQ(m.first_outputs[0].at(0).data.at(0), 0.0f);
  EXPECT_EQ(m.first_outputs[1].at(0).data.at(0), 1.0f);
}

TEST(Offline, TheTimeCapEndsTheWindowAndMinTimeExtendsIt) {
  InFlight in_flight;
  SleepingContext a(0, std::chrono::milliseconds(2), in_flight);
  SleepingContext b(1, std::chrono::milliseconds(2), in_flight);
  MeasureOptions options;
  options.warmup = 0;
  options.repeats = 100000;
  options.max_repeats = 100000;
  options.max_time = std::chrono::milliseconds(40);
  options.sample_period = std::chrono::milliseconds(0);
  OfflineMeasurement m = MeasureOffline({&a, &b}, {}, 1, options);
  EXPECT_EQ(m.stop_reason, "time");
  EXPECT_GE(m.window_s, 0.040);
  EXPECT_LT(m.window_s, 0.5);

  options.repeats = 4;
  options.max_time = std::chrono::seconds(0);
  options.min_time = std::chrono::milliseconds(30);
  m = MeasureOffline({&a, &b}, {}, 1, options);
  EXPECT_EQ(m.stop_reason, "repeats");
  EXPECT_GE(m.window_s, 0.030);
  EXPECT_GT(m.latencies_ns.size(), 4u);
}

TEST(Offline, AFailingStreamStopsEveryStreamAndItsErrorComesBack) {
  InFlight in_flight;
  SleepingContext a(0, std::chrono::milliseconds(1), in_flight);
  SleepingContext b(1, std::chrono::milliseconds(1), in_flight);
  b.fail_at = 5;  // in its warmup
  MeasureOptions options;
  options.warmup = 10;
  options.repeats = 1000000;
  options.max_repeats = 1000000;
  options.sample_period = std::chrono::milliseconds(0);
  EXPECT_THROW(MeasureOffline({&a, &b}, {}, 1, options), std::runtime_error);
  b.fail_at = b.runs + 30;  // in the timed window
  EXPECT_THROW(MeasureOffline({&a, &b}, {}, 1, options), std::runtime_error);
}

TEST(Offline, NoContextsOrTheCiRuleAreRefused) {
  MeasureOptions options;
  EXPECT_THROW(MeasureOffline({}, {}, 1, options), std::invalid_argument);
  InFlight in_flight;
  SleepingContext a(0, std::chrono::microseconds(0), in_flight);
  options.stop = StopRule::kCi;
  EXPECT_THROW(MeasureOffline({&a}, {}, 1, options), std::invalid_argument);
}

}  // namespace
}  // namespace ngraphbench
