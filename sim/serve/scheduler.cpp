#include "sim/serve/scheduler.h"

#include <algorithm>
#include <deque>
#include <stdexcept>

#include <fmt/format.h>

#include "core/input_error.h"

namespace cstsim::serve {

int64_t Batch::tokens() const {
  int64_t n = 0;
  for (const BatchItem& i : items) n += i.q;
  return n;
}
int64_t Batch::emitting() const {
  return std::count_if(items.begin(), items.end(), [](const BatchItem& i) { return i.emits; });
}

namespace {

struct Live {
  int64_t cached = 0;   // tokens whose K and V are in the cache
  int64_t target = 0;   // tokens to prefill before decoding: the prompt, plus what was generated before a preemption
  int64_t blocks = 0;
};

int64_t blocks_for(int64_t tokens, int64_t block) { return (tokens + block - 1) / block; }

}  // namespace

ServeResult serve(const RequestSet& set, const SchedulerConfig& c, const Pricer& price) {
  if (c.token_budget < 1 || c.max_seqs < 1 || c.block_tokens < 1 || c.kv_blocks < 1)
    throw std::logic_error("serve: a scheduler limit below 1");
  ServeResult res;
  const std::vector<Request>& reqs = set.requests;
  for (const Request& r : reqs) {
    const int64_t need = blocks_for(r.prompt + r.output, c.block_tokens);
    if (need > c.kv_blocks)
      throw InputError(set.source, r.line, "",
                       fmt::format("request {} ({} + {} tokens) needs {} KV blocks of {} tokens; the cache holds {}", r.id,
                                   r.prompt, r.output, need, c.block_tokens, c.kv_blocks));
    RequestLog log;
    log.request = r;
    res.requests.push_back(log);
  }
  std::vector<Live> live(reqs.size());
  std::deque<int> waiting;   // arrived, not running (preempted ones at the front)
  std::vector<int> running;  // in admission order
  size_t next = 0;           // the next request to arrive
  int64_t free_blocks = c.kv_blocks;
  double now = 0;
  size_t finished = 0;

  while (finished < reqs.size()) {
    while (next < reqs.size() && reqs[next].arrival_s <= now) waiting.push_back(int(next++));
    if (running.empty() && waiting.empty()) {
      now = reqs[next].arrival_s;  // idle until the next arrival
      continue;
    }
    Batch batch;
    int64_t budget = c.token_budget;
    int preempted = 0;
    std::vector<char> in_batch(reqs.size(), 0);
    auto preempt = [&](int v) {
      Live& l = live[size_t(v)];
      free_blocks += l.blocks;
      res.requests[size_t(v)].preemptions++;
      res.requests[size_t(v)].recomputed_tokens += l.cached;  // their K and V are lost: computed again
      l.blocks = 0;
      l.cached = 0;
      l.target = reqs[size_t(v)].prompt + res.requests[size_t(v)].generated;
      running.erase(std::find(running.begin(), running.end(), v));
      waiting.push_front(v);
      ++preempted;
    };
    // Running requests, oldest first.
    for (size_t k = 0; k < running.size() && budget > 0 && int64_t(batch.items.size()) < c.max_seqs;) {
      const int r = running[k];
      Live& l = live[size_t(r)];
      const bool prefill = l.cached < l.target;
      const int64_t q = prefill ? std::min(l.target - l.cached, budget) : 1;
      const int64_t need = blocks_for(l.cached + q, c.block_tokens) - l.blocks;
      bool self_preempted = false;
      while (need > free_blocks) {
        // The newest running request not already in this batch; itself if none other is left.
        int victim = -1;
        for (size_t j = running.size(); j-- > 0;)
          if (!in_batch[size_t(running[j])]) {
            victim = running[j];
            break;
          }
        if (victim == r) {
          preempt(r);
          self_preempted = true;
          break;
        }
        preempt(victim);
      }
      if (self_preempted) continue;  // running[k] is now the next one
      free_blocks -= need;
      l.blocks += need;
      batch.items.push_back({r, q, l.cached, prefill, !prefill || l.cached + q == l.target});
      in_batch[size_t(r)] = 1;
      budget -= q;
      ++k;
    }
    // Waiting requests in order, while nothing was preempted this iteration.
    while (preempted == 0 && !waiting.empty() && budget > 0 && int64_t(batch.items.size()) < c.max_seqs) {
      const int r = waiting.front();
      Live& l = live[size_t(r)];
      if (l.target == 0) l.target = reqs[size_t(r)].prompt;
      const int64_t q = std::min(l.target - l.cached, budget);
      const int64_t need = blocks_for(q, c.block_tokens);
      if (need > free_blocks) break;
      waiting.pop_front();
      running.push_back(r);
      free_blocks -= need;
      l.blocks = need;
      batch.items.push_back({r, q, 0, true, q == l.target});
      in_batch[size_t(r)] = 1;
      budget -= q;
      if (res.requests[size_t(r)].scheduled_s < 0) res.requests[size_t(r)].scheduled_s = now;
    }
    if (batch.items.empty()) throw std::logic_error("serve: an iteration with nothing to run while requests wait");

    const StepCost cost = price(batch);
    if (!(cost.seconds > 0)) throw std::logic_error(fmt::format("serve: an iteration priced at {} s", cost.seconds));
    IterationLog it;
    it.start_s = now;
    it.seconds = cost.seconds;
    it.energy_j = cost.energy_j;
    it.preempted = preempted;
    now += cost.seconds;
    for (const BatchItem& b : batch.items) {
      Live& l = live[size_t(b.request)];
      RequestLog& log = res.requests[size_t(b.request)];
      l.cached += b.q;
      it.tokens += b.q;
      (b.prefill ? it.prefill_tokens : it.decode_tokens) += b.q;
      if (!b.emits) continue;
      if (log.generated == 0) log.first_token_s = now;
      if (++log.generated == log.request.output) {
        log.finish_s = now;
        free_blocks += l.blocks;
        l.blocks = 0;
        running.erase(std::find(running.begin(), running.end(), b.request));
        ++finished;
      }
    }
    it.seqs = int64_t(batch.items.size());
    it.kv_blocks = c.kv_blocks - free_blocks;
    while (next < reqs.size() && reqs[next].arrival_s <= now) waiting.push_back(int(next++));
    it.waiting = int64_t(waiting.size());
    it.running = int64_t(running.size());
    res.kv_blocks_peak = std::max(res.kv_blocks_peak, it.kv_blocks);
    res.iterations.push_back(it);

    // The cache's law: the blocks in use are the running requests' blocks, each as its tokens need.
    int64_t held = 0;
    for (int r : running) {
      const Live& l = live[size_t(r)];
      if (l.blocks != blocks_for(l.cached, c.block_tokens))
        throw std::logic_error(fmt::format("serve: request {} holds {} blocks for {} tokens", r, l.blocks, l.cached));
      held += l.blocks;
    }
    if (held != it.kv_blocks) throw std::logic_error(fmt::format("serve: {} blocks in use, the requests hold {}", it.kv_blocks, held));
  }
  res.end_s = now;
  return res;
}

}  // namespace cstsim::serve
