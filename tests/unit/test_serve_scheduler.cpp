// The serving loop's scheduler (sim/serve/scheduler.h) on a chip whose iteration time is a known
// function of its tokens, so what the loop does can be checked against queueing laws.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "core/input_error.h"
#include "sim/serve/requests.h"
#include "sim/serve/scheduler.h"
#include "tests/test_util.h"

namespace cstsim::serve {
namespace {

// An iteration costs a fixed part (the weights read once) and a part per token.
StepCost linear(const Batch& b) { return {1e-3 + 2e-5 * double(b.tokens()), 0}; }

RequestSet poisson(int n, double rate, int64_t prompt_lo, int64_t prompt_hi, int64_t out_lo, int64_t out_hi, uint64_t seed) {
  testing_util::TempDir d;
  const std::string p = (d.path / "gen.yaml").string();
  std::ofstream(p) << "count: " << n << "\nrate_per_s: " << rate << "\nprompt_tokens: {min: " << prompt_lo << ", max: "
                   << prompt_hi << "}\noutput_tokens: {min: " << out_lo << ", max: " << out_hi << "}\nseed: " << seed << "\n";
  return load_requests(p);
}

SchedulerConfig config(int64_t kv_blocks) {
  SchedulerConfig c;
  c.token_budget = 256;
  c.max_seqs = 64;
  c.block_tokens = 16;
  c.kv_blocks = kv_blocks;
  return c;
}

double mean_latency(const ServeResult& r) {
  double s = 0;
  for (const RequestLog& l : r.requests) s += l.finish_s - l.request.arrival_s;
  return s / double(r.requests.size());
}

double median_ttft(const ServeResult& r) {
  std::vector<double> v;
  for (const RequestLog& l : r.requests) v.push_back(l.first_token_s - l.request.arrival_s);
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Every token is accounted for: a request processes its prompt and every output token but the
// last (whose K and V nobody needs), plus the tokens whose K and V a preemption discarded; it
// emits each output token once, the first at the end of its prefill.
TEST(ServeScheduler, EveryTokenIsProcessedOnceAndEveryRequestFinishes) {
  const RequestSet rs = poisson(300, 150, 16, 400, 1, 64, 7);
  const ServeResult r = serve(rs, config(200), linear);
  int64_t processed = 0, want = 0, preemptions = 0;
  for (const IterationLog& it : r.iterations) {
    EXPECT_EQ(it.tokens, it.prefill_tokens + it.decode_tokens);
    processed += it.tokens;
    EXPECT_LE(it.tokens, 256);
    EXPECT_LE(it.seqs, 64);
    EXPECT_LE(it.kv_blocks, 200);
  }
  for (const RequestLog& l : r.requests) {
    EXPECT_EQ(l.generated, l.request.output);
    EXPECT_GE(l.scheduled_s, l.request.arrival_s);
    EXPECT_GT(l.first_token_s, l.scheduled_s);
    EXPECT_GE(l.finish_s, l.first_token_s);
    want += l.request.prompt + l.request.output - 1 + l.recomputed_tokens;
    preemptions += l.preemptions;
  }
  EXPECT_EQ(processed, want);
  EXPECT_GT(preemptions, 0) << "the case is meant to preempt (200 blocks for ~20 requests in flight)";
}

// Little's law, L = lambda W: the mean number of requests in the system over the run, taken from
// the scheduler's per-iteration counts, against the arrival rate times the mean time in system,
// taken from the request log.
TEST(ServeScheduler, LittlesLawHoldsOnTheLog) {
  const RequestSet rs = poisson(2000, 60, 32, 256, 8, 128, 3);
  const ServeResult r = serve(rs, config(4000), linear);
  double area = 0;
  for (const IterationLog& it : r.iterations) area += double(it.waiting + it.running) * it.seconds;
  const double L = area / r.end_s;
  const double lambda = double(rs.requests.size()) / r.end_s;
  const double W = mean_latency(r);
  EXPECT_NEAR(L / (lambda * W), 1.0, 0.03) << "L " << L << " lambda W " << lambda * W;
}

// TTFT grows with the load and explodes past saturation. The chip serves at most about
// 1 / (1 ms + 20 us x tokens per request's share) requests a second; at 30 % of that the queue
// is short, at 150 % it grows for the whole run.
TEST(ServeScheduler, TtftGrowsWithLoadAndExplodesPastSaturation) {
  // Requests of 128 + 32 tokens: with 8 decodes in flight an iteration of ~256 tokens takes ~6 ms.
  // Capacity: measure it on a closed burst (everything at t = 0).
  const RequestSet burst = poisson(400, 1e9, 128, 128, 32, 32, 5);
  const ServeResult b = serve(burst, config(4000), linear);
  const double capacity = double(burst.requests.size()) / b.end_s;  // requests/s at full load
  std::vector<double> ttft;
  for (double load : {0.3, 0.6, 0.9, 1.5}) {
    const RequestSet rs = poisson(400, load * capacity, 128, 128, 32, 32, 5);
    ttft.push_back(median_ttft(serve(rs, config(4000), linear)));
  }
  for (size_t i = 1; i < ttft.size(); ++i) EXPECT_GT(ttft[i], ttft[i - 1]) << "load step " << i;
  EXPECT_GT(ttft[3], 20 * ttft[0]) << "past saturation the queue grows: " << ttft[3] << " s against " << ttft[0] << " s";
}

// A cache too small for the requests in flight preempts (by recompute), and still serves every
// token; a large one never preempts.
TEST(ServeScheduler, ASmallerCacheForcesPreemptions) {
  const RequestSet rs = poisson(200, 500, 200, 400, 100, 200, 11);
  const ServeResult big = serve(rs, config(100000), linear);
  const ServeResult small = serve(rs, config(80), linear);  // 1,280 tokens: about three requests
  int64_t pb = 0, ps = 0, recomputed = 0;
  for (const RequestLog& l : big.requests) pb += l.preemptions;
  for (const RequestLog& l : small.requests) {
    ps += l.preemptions;
    recomputed += l.recomputed_tokens;
    EXPECT_EQ(l.generated, l.request.output);
  }
  EXPECT_EQ(pb, 0);
  EXPECT_GT(ps, 0);
  EXPECT_GT(recomputed, 0);
  EXPECT_LE(small.kv_blocks_peak, 80);
  EXPECT_GT(small.end_s, big.end_s) << "recomputing costs time";
}

TEST(ServeScheduler, ARequestLargerThanTheCacheIsAnInputError) {
  testing_util::TempDir d;
  const std::string p = (d.path / "t.csv").string();
  std::ofstream(p) << "arrival_s,prompt_tokens,output_tokens\n0,100,10\n0.5,5000,10\n";
  const RequestSet rs = load_requests(p);
  try {
    serve(rs, config(100), linear);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.csv:3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("request 1 (5000 + 10 tokens) needs 314 KV blocks"), std::string::npos) << e.what();
  }
}

TEST(ServeRequests, TraceErrorsNameTheLineAndColumn) {
  testing_util::TempDir d;
  auto error = [&](const std::string& text) {
    const std::string p = (d.path / "t.csv").string();
    std::ofstream(p) << text;
    try {
      load_requests(p);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("arrival,prompt,output\n").find("t.csv:1: the header must be arrival_s,prompt_tokens,output_tokens"), std::string::npos);
  EXPECT_NE(error("arrival_s,prompt_tokens,output_tokens\n0,10,1\n\n-1,10,1\n").find("t.csv:4: arrival_s: must be a time"), std::string::npos);
  EXPECT_NE(error("arrival_s,prompt_tokens,output_tokens\n1,10,1\n0.5,10,1\n").find("t.csv:3: arrival_s: 0.5 s comes before"), std::string::npos);
  EXPECT_NE(error("arrival_s,prompt_tokens,output_tokens\n1,0,1\n").find("t.csv:2: prompt_tokens: must be a whole number"), std::string::npos);
  EXPECT_NE(error("arrival_s,prompt_tokens,output_tokens\n1,10\n").find("t.csv:2: 2 fields, expected 3"), std::string::npos);
  EXPECT_NE(error("arrival_s,prompt_tokens,output_tokens\n").find("no request after the header"), std::string::npos);
}

// The generator: the same file gives the same requests; arrivals are Poisson at the rate asked.
TEST(ServeRequests, GeneratorIsReproducibleAndHasItsRate) {
  const RequestSet a = poisson(20000, 50, 10, 20, 1, 3, 42), b = poisson(20000, 50, 10, 20, 1, 3, 42);
  ASSERT_EQ(a.requests.size(), b.requests.size());
  for (size_t i = 0; i < a.requests.size(); ++i) {
    EXPECT_EQ(a.requests[i].arrival_s, b.requests[i].arrival_s);
    EXPECT_EQ(a.requests[i].prompt, b.requests[i].prompt);
  }
  const double rate = double(a.requests.size()) / a.requests.back().arrival_s;
  EXPECT_NEAR(rate, 50, 50 * 0.03);  // 20,000 gaps: the mean's relative error ~0.7 %
  int64_t lo = 99, hi = 0;
  for (const Request& r : a.requests) lo = std::min(lo, r.prompt), hi = std::max(hi, r.prompt);
  EXPECT_EQ(lo, 10);
  EXPECT_EQ(hi, 20);
}

}  // namespace
}  // namespace cstsim::serve
