#include "ngraphbench/measure/server.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "ngraphbench/measure/clock.h"
#include "ngraphbench/measure/offline.h"
#include "ngraphbench/measure/stats.h"

namespace ngraphbench {

namespace {

double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

// Percentile q of integer nanoseconds, in ms (stats.h's definition).
double PercentileMs(const std::vector<int64_t>& ns, double q) {
  if (ns.empty()) return 0;
  std::vector<double> ms;
  ms.reserve(ns.size());
  for (int64_t v : ns) ms.push_back(Ms(v));
  std::sort(ms.begin(), ms.end());
  return Percentile(ms, q);
}

// Between the generator and the streams: the scheduled arrivals of the queries not yet taken,
// in order, and how the run ends.
struct Queue {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<MeasureClock::time_point> arrivals;
  bool closed = false;  // the generator has issued its last query
  bool aborted = false;  // a stream failed: everyone stops now
  MeasureClock::time_point drain_end;  // after `closed`: what is still queued then is left
};

}  // namespace

PoissonArrivals::PoissonArrivals(double qps, uint64_t seed) : qps_(qps), rng_(seed) {
  if (!(qps > 0) || !std::isfinite(qps)) {
    throw std::invalid_argument(fmt::format("Poisson arrivals need a rate > 0, got {}", qps));
  }
}

double PoissonArrivals::NextGapS() { return -std::log1p(-rng_.Uniform()) / qps_; }

int64_t MinServerQueries(double percentile) {
  // The small slack keeps an exact quotient (p99: 10 / 0.01 = 1000.0000000000001) from
  // rounding up to one more.
  return static_cast<int64_t>(
      std::ceil(static_cast<double>(kServerTailQueries) * 100.0 / (100.0 - percentile) - 1e-6));
}

double ServerLateIssueMs(double latency_bound_ms) {
  return std::max(kServerLateIssueMinMs, kServerLateIssueBoundShare * latency_bound_ms);
}

std::chrono::duration<double> ServerDrain(double latency_bound_ms) {
  return std::chrono::duration<double>(std::max(1.0, 2 * latency_bound_ms / 1e3));
}

std::vector<ServerBroken> JudgeServer(const ServerMeasurement& m, const ServerOptions& options) {
  std::vector<ServerBroken> broken;
  if (m.issued < options.min_queries) {
    broken.push_back({ServerRule::kQueries, fmt::format(
        "server: {} queries < the {} that p{:g} needs ({} beyond it) in the {:.3g} s it may "
        "issue (raise target_qps or max_time_s, or lower latency_percentile)",
        m.issued, options.min_queries, options.percentile, kServerTailQueries,
        options.max_duration.count())});
  }
  if (m.issue_s + 1e-9 < options.min_duration.count()) {
    broken.push_back({ServerRule::kDuration,
                      fmt::format("server: issued over {:.3g} s < server_min_duration_s {:.3g}",
                                  m.issue_s, options.min_duration.count())});
  }
  if (m.issued > 0 &&
      static_cast<double>(m.late_issues) > kServerMaxLateShare * static_cast<double>(m.issued)) {
    broken.push_back({ServerRule::kGeneratorBehind, fmt::format(
        "server: the load generator fell behind: {} of {} queries issued more than {:.3g} ms "
        "after their scheduled arrival (> {:g}%, p99 {:.3g} ms late)",
        m.late_issues, m.issued, ServerLateIssueMs(options.latency_bound_ms),
        kServerMaxLateShare * 100, m.issue_delay_p99_ms)});
  }
  return broken;
}

std::vector<std::string> ServerInvalidReasons(const ServerMeasurement& m,
                                              const ServerOptions& options) {
  std::vector<std::string> reasons;
  for (ServerBroken& b : JudgeServer(m, options)) reasons.push_back(std::move(b.reason));
  return reasons;
}

ServerMeasurement MeasureServer(const std::vector<RunContext*>& contexts,
                                const std::vector<HostTensor>& inputs, int64_t batch_size,
                                const MeasureOptions& options, const ServerOptions& server) {
  if (contexts.empty()) throw std::invalid_argument("server: no execution contexts");
  if (!(server.target_qps > 0) || !(server.latency_bound_ms > 0) ||
      !(server.percentile > 0 && server.percentile < 100)) {
    throw std::invalid_argument(fmt::format(
        "server: target_qps {} and latency_bound_ms {} must be > 0, percentile {} in (0, 100)",
        server.target_qps, server.latency_bound_ms, server.percentile));
  }
  ServerMeasurement m;
  m.streams = static_cast<int64_t>(contexts.size());
  m.target_qps = server.target_qps;
  // Before the first run, as in Measure(): NVML may take a second to load.
  SystemSampler sampler(options.sample_period, kPowercapRoot, options.gpu);

  Queue queue;
  std::vector<int64_t> issue_delays_ns;  // the generator's alone until it is joined
  const char* stop_reason = "queries";
  double issue_s = 0;
  const bool capped = server.max_duration.count() > 0;
  const auto drain =
      std::chrono::duration_cast<MeasureClock::duration>(ServerDrain(server.latency_bound_ms));

  // The load generator: sleeps until each query's scheduled arrival, then queues it. It never
  // waits for a stream: a system that cannot keep up sees its queue grow, as under real load.
  auto generate = [&](MeasureClock::time_point start) {
    PoissonArrivals arrivals(server.target_qps, server.seed);
    double next_s = arrivals.NextGapS();
    int64_t issued = 0;
    std::unique_lock<std::mutex> lock(queue.mutex);
    while (!queue.aborted) {
      if (issued >= server.min_queries && next_s >= server.min_duration.count()) {
        issue_s = next_s;  // [0, next_s) holds exactly the queries issued
        break;
      }
      if (capped && next_s >= server.max_duration.count()) {
        stop_reason = "time";
        issue_s = server.max_duration.count();
        break;
      }
      const auto scheduled =
          start + std::chrono::duration_cast<MeasureClock::duration>(
                      std::chrono::duration<double>(next_s));
      queue.changed.wait_until(lock, scheduled, [&] { return queue.aborted; });
      if (queue.aborted) break;
      issue_delays_ns.push_back(ElapsedNs(scheduled, MeasureClock::now()));
      queue.arrivals.push_back(scheduled);
      ++issued;
      queue.changed.notify_all();
      next_s += arrivals.NextGapS();
    }
    queue.closed = true;
    queue.drain_end = start +
                      std::chrono::duration_cast<MeasureClock::duration>(
                          std::chrono::duration<double>(issue_s)) +
                      drain;
    queue.changed.notify_all();
  };

  std::vector<std::vector<int64_t>> latencies(contexts.size());
  std::vector<MeasureClock::time_point> last_end(contexts.size());
  std::thread generator;
  StreamHooks hooks;
  hooks.open = [&] {
    sampler.Start();
    const auto start = MeasureClock::now();
    generator = std::thread(generate, start);
    return start;
  };
  hooks.stop = [&] {
    std::lock_guard<std::mutex> lock(queue.mutex);
    queue.aborted = true;
    queue.changed.notify_all();
  };
  hooks.serve = [&](size_t i, RunContext& context, MeasureClock::time_point start) {
    last_end[i] = start;
    for (;;) {
      MeasureClock::time_point scheduled;
      {
        std::unique_lock<std::mutex> lock(queue.mutex);
        queue.changed.wait(lock, [&] {
          return queue.aborted || queue.closed || !queue.arrivals.empty();
        });
        if (queue.aborted || queue.arrivals.empty()) return;  // closed and served
        if (queue.closed && MeasureClock::now() >= queue.drain_end) return;
        scheduled = queue.arrivals.front();
        queue.arrivals.pop_front();
      }
      int64_t unused = 0;
      last_end[i] = TimedRequest(context, inputs, options.boundary, unused);
      latencies[i].push_back(ElapsedNs(scheduled, last_end[i]));
    }
  };
  StreamsRun run;
  try {
    run = RunStreams(contexts, inputs, options, hooks);
  } catch (...) {
    hooks.stop();
    if (generator.joinable()) generator.join();
    throw;
  }
  generator.join();
  const auto drained = MeasureClock::now();
  m.system = sampler.Stop();
  m.first_run_ms = run.first_run_ms;
  m.warmup_runs = run.warmup_runs;
  m.first_outputs = std::move(run.first_outputs);

  for (const auto& stream_ns : latencies) {
    m.latencies_ns.insert(m.latencies_ns.end(), stream_ns.begin(), stream_ns.end());
  }
  m.completed = static_cast<int64_t>(m.latencies_ns.size());
  // What the drain left: each has waited at least until now, past the bound (ServerDrain).
  for (const MeasureClock::time_point scheduled : queue.arrivals) {
    m.latencies_ns.push_back(ElapsedNs(scheduled, drained));
  }
  m.issued = static_cast<int64_t>(issue_delays_ns.size());
  m.issue_s = issue_s;
  const auto end = *std::max_element(last_end.begin(), last_end.end());
  m.window_s = std::chrono::duration<double>(end - run.start).count();
  if (m.window_s > 0) {
    m.achieved_qps = static_cast<double>(m.completed) / m.window_s;
    m.samples_per_s = static_cast<double>(batch_size) * m.achieved_qps;
  }
  const double late_ms = ServerLateIssueMs(server.latency_bound_ms);
  m.late_issues = std::count_if(issue_delays_ns.begin(), issue_delays_ns.end(),
                                [&](int64_t ns) { return Ms(ns) > late_ms; });
  m.issue_delay_p99_ms = PercentileMs(issue_delays_ns, 99);
  m.percentile_ms = PercentileMs(m.latencies_ns, server.percentile);
  m.bound_met = m.issued > 0 && m.completed == m.issued &&
                m.percentile_ms <= server.latency_bound_ms;
  m.stop_reason = stop_reason;
  for (ServerBroken& b : JudgeServer(m, server)) {
    m.invalid_rules.push_back(b.rule);
    m.invalid_reasons.push_back(std::move(b.reason));
  }
  return m;
}

bool MetTheBound(const ServerMeasurement& step) {
  return step.bound_met && step.invalid_reasons.empty();
}

bool ReportsStep(const ServerMeasurement& step, const ServerMeasurement* reported) {
  if (!reported) return true;
  const bool met = MetTheBound(step), reported_met = MetTheBound(*reported);
  return met ? !reported_met || step.target_qps > reported->target_qps : !reported_met;
}

PeakSearch FindPeak(double start_qps, const std::function<bool(double qps)>& meets,
                    double rel_tolerance, int max_steps, double min_qps) {
  if (!(start_qps > 0)) {
    throw std::invalid_argument(fmt::format("find_peak: start at a rate > 0, got {}", start_qps));
  }
  PeakSearch search;
  auto step = [&](double qps) {
    const bool met = meets(qps);
    search.steps.push_back({qps, met});
    return met;
  };
  auto out_of_steps = [&] { return static_cast<int>(search.steps.size()) >= max_steps; };
  double lower = 0, upper = 0;
  if (step(start_qps)) {
    // A lower bound: double until a rate fails.
    lower = start_qps;
    for (;;) {
      if (out_of_steps()) {
        search.peak_qps = lower;
        search.stop_reason = "max_steps";
        return search;
      }
      if (!step(2 * lower)) {
        upper = 2 * lower;
        break;
      }
      lower *= 2;
    }
  } else {
    // An upper bound: halve until a rate meets it.
    upper = start_qps;
    for (;;) {
      if (upper / 2 < min_qps) {
        search.stop_reason = "min_qps";
        return search;
      }
      if (out_of_steps()) {
        search.stop_reason = "max_steps";
        return search;
      }
      if (step(upper / 2)) {
        lower = upper / 2;
        break;
      }
      upper /= 2;
    }
  }
  search.stop_reason = "tolerance";
  while (upper - lower > rel_tolerance * lower) {
    if (out_of_steps()) {
      search.stop_reason = "max_steps";
      break;
    }
    const double mid = (lower + upper) / 2;
    if (step(mid)) {
      lower = mid;
    } else {
      upper = mid;
    }
  }
  search.peak_qps = lower;
  return search;
}

}  // namespace ngraphbench
