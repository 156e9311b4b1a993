#include "sim/serve/step_pricer.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_error.h"
#include "sim/sweep/process.h"
#include "commit.h"
#include "version.h"

namespace cstsim::serve {
namespace fs = std::filesystem;

std::vector<int64_t> token_grid(int64_t top) {
  std::vector<int64_t> g;
  for (int64_t t : {1, 16, 64, 128})
    if (t <= top) g.push_back(t);
  for (int64_t t = 256; t <= top; t += 128) g.push_back(t);
  if (g.back() != top) g.push_back(top);
  return g;
}

std::vector<int64_t> context_grid(int64_t top) {
  std::vector<int64_t> g = {0};
  for (int64_t c = 512; c <= top; c = c < 1024 ? 1024 : c + 1024) g.push_back(c);
  if (g.back() != top) g.push_back(top);
  return g;
}

namespace {

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

// The grid points around x and x's weight toward the upper one.
struct Bracket {
  int64_t lo, hi;
  double w;
};
Bracket bracket(const std::vector<int64_t>& g, int64_t x) {
  if (x <= g.front()) return {g.front(), g.front(), 0};
  if (x >= g.back()) {
    if (x > g.back()) throw std::logic_error(fmt::format("serve: {} past the pricing grid's last point {}", x, g.back()));
    return {g.back(), g.back(), 0};
  }
  const auto it = std::upper_bound(g.begin(), g.end(), x);
  const int64_t lo = *(it - 1), hi = *it;
  return {lo, hi, double(x - lo) / double(hi - lo)};
}

}  // namespace

StepPricer::StepPricer(PricerOptions o, ServeModel m)
    : o_(std::move(o)), m_(std::move(m)), t_grid_(serve::token_grid(o_.token_budget)), c_grid_(serve::context_grid(o_.max_context)),
      s_grid_(serve::token_grid(std::min(o_.max_seqs, o_.token_budget))) {}

void StepPricer::emit(const std::string& part, int64_t q, int64_t c, const std::string& p, std::ostream& tensors,
                      std::ostream& ops) const {
  const std::string d = m_.dtype, kd = m_.kv_dtype;
  const int64_t H = m_.hidden, HQ = m_.heads * m_.head_dim, KV = m_.kv_width(), F = m_.ffn;
  auto tensor = [&](const std::string& n, const std::string& shape, const std::string& dt, const char* role) {
    tensors << "  - {name: " << p << n << ", shape: [" << shape << "], dtype: " << dt << ", role: " << role << "}\n";
  };
  auto op = [&](const std::string& n, const char* kind, std::vector<std::string> in, const std::string& out,
                const std::string& extra = "") {
    for (std::string& x : in) x = p + x;
    ops << "  - {name: " << p << n << ", op: " << kind << ", in: [" << fmt::format("{}", fmt::join(in, ", ")) << "], out: " << p
        << out << extra << "}\n";
  };
  if (part == "dense") {
    tensor("x", fmt::format("1, {}, {}", q, H), d, "activation");
    tensor("ctx", fmt::format("1, {}, {}", q, HQ), d, "activation");
    tensor("norm1_w", std::to_string(H), d, "weight");
    tensor("wq", fmt::format("{}, {}", H, HQ), d, "weight");
    tensor("wk", fmt::format("{}, {}", H, KV), d, "weight");
    tensor("wv", fmt::format("{}, {}", H, KV), d, "weight");
    tensor("wo", fmt::format("{}, {}", HQ, H), d, "weight");
    tensor("norm2_w", std::to_string(H), d, "weight");
    if (m_.ffn_kind == "swiglu") tensor("w_gate", fmt::format("{}, {}", H, F), d, "weight");
    tensor("w_up", fmt::format("{}, {}", H, F), d, "weight");
    tensor("w_down", fmt::format("{}, {}", F, H), d, "weight");
    op("norm1", "rmsnorm", {"x", "norm1_w"}, "h1");
    op("q_proj", "matmul", {"h1", "wq"}, "q");
    op("k_proj", "matmul", {"h1", "wk"}, "k");
    op("v_proj", "matmul", {"h1", "wv"}, "v");
    op("rope_q", "rope", {"q"}, "q_rot");
    op("rope_k", "rope", {"k"}, "k_rot");
    op("o_proj", "matmul", {"ctx", "wo"}, "o");
    op("res1", "add", {"x", "o"}, "x2");
    op("norm2", "rmsnorm", {"x2", "norm2_w"}, "h2");
    op("up_proj", "matmul", {"h2", "w_up"}, "up");
    if (m_.ffn_kind == "swiglu") {
      op("gate_proj", "matmul", {"h2", "w_gate"}, "gate");
      op("act", "silu", {"gate"}, "gate_act");
      op("gate_mul", "mul", {"gate_act", "up"}, "ffn_in");
    } else {
      op("act", "gelu", {"up"}, "ffn_in");
    }
    op("down_proj", "matmul", {"ffn_in", "w_down"}, "f2");
    op("res2", "add", {"x2", "f2"}, "y");
  } else if (part == "attention") {
    tensor("q_rot", fmt::format("1, {}, {}", q, HQ), d, "activation");
    tensor("k_new", fmt::format("1, {}, {}", q, KV), kd, "activation");
    tensor("v_new", fmt::format("1, {}, {}", q, KV), kd, "activation");
    if (c > 0) {
      tensor("k_cache", fmt::format("1, {}, {}", c, KV), kd, "kv_cache");
      tensor("v_cache", fmt::format("1, {}, {}", c, KV), kd, "kv_cache");
      op("k_append", "kv_append", {"k_cache", "k_new"}, "k_all");
      op("v_append", "kv_append", {"v_cache", "v_new"}, "v_all");
    }
    const std::string extra = fmt::format(", heads: {}, kv_heads: {}, causal: true{}", m_.heads, m_.kv_heads,
                                          m_.attention == "flash" ? ", tiling: flash" : "");
    if (c > 0)
      op("attn", "attention", {"q_rot", "k_all", "v_all"}, "ctx", extra);
    else
      op("attn", "attention", {"q_rot", "k_new", "v_new"}, "ctx", extra);
  } else if (part == "head") {
    tensor("y", fmt::format("1, {}, {}", q, H), d, "activation");
    tensor("norm_w", std::to_string(H), d, "weight");
    tensor("lm_head", fmt::format("{}, {}", H, m_.vocab), d, "weight");
    op("norm", "rmsnorm", {"y", "norm_w"}, "h");
    op("lm_head", "matmul", {"h", "lm_head"}, "logits");
  } else {
    throw std::logic_error("serve: no part " + part);
  }
}

std::string StepPricer::graph(const std::string& part, int64_t q, int64_t c) const {
  std::ostringstream t, o;
  emit(part, q, c, "", t, o);
  return fmt::format("# {} of {} (cstsim serve's pricing graph): q {}, context {}\nname: serve-{}-q{}-c{}\ntensors:\n{}ops:\n{}",
                     part, m_.name, q, c, part, q, c, t.str(), o.str());
}

std::string StepPricer::iteration_graph(const Batch& b) const {
  std::ostringstream t, o;
  for (int64_t l = 0; l < m_.layers; ++l) {
    emit("dense", b.tokens(), 0, fmt::format("b{}.", l), t, o);
    for (size_t i = 0; i < b.items.size(); ++i) emit("attention", b.items[i].q, b.items[i].context, fmt::format("b{}.r{}.", l, i), t, o);
  }
  if (b.emitting() > 0) emit("head", b.emitting(), 0, "", t, o);
  return fmt::format("# one iteration of {} (cstsim serve --pricing iteration): {} tokens, {} requests\nname: serve-iteration\n"
                     "tensors:\n{}ops:\n{}",
                     m_.name, b.tokens(), b.items.size(), t.str(), o.str());
}

double StepPricer::simulate(const std::string& part, int64_t q, int64_t c) {
  const auto key = std::make_tuple(part, q, c);
  if (auto it = points_.find(key); it != points_.end()) return it->second.seconds;
  PricePoint p;
  p.part = part;
  p.q = q;
  p.c = c;
  run_graph(graph(part, q, c), fmt::format("{}-q{}-c{}", part, q, c), p);
  points_[key] = p;
  return p.seconds;
}

void StepPricer::run_graph(const std::string& text, const std::string& stem, PricePoint& p) {
  const std::string& part = p.part;
  const int64_t q = p.q, c = p.c;
  const std::string id = fmt::format("{:016x}", fnv1a(o_.arch_key + "\n" + o_.fidelity + "\n" + CSTSIM_VERSION + "\n" + CSTSIM_COMMIT + "\n" + text));
  const fs::path cached = o_.cache_dir.empty() ? fs::path() : fs::path(o_.cache_dir) / (stem + "-" + id + ".json");
  if (!cached.empty() && fs::exists(cached)) {
    std::ifstream in(cached);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_object() && j.contains("seconds") && j["seconds"].is_number() && j["seconds"].get<double>() > 0) {
      p.seconds = j["seconds"];
      p.ci95_s = j.value("ci95_s", 0.0);
      p.from_cache = true;
      return;
    }
  }
  const fs::path dir = fs::path(o_.work_dir) / "graphs";
  fs::create_directories(dir);
  const fs::path g = dir / (stem + ".yaml");
  {
    std::ofstream out(g);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + g.string());
  }
  const fs::path run = fs::path(o_.work_dir) / "runs" / stem;
  // The child runs this very binary (/proc/self/exe), even when the file on disk is rebuilt meanwhile.
  std::vector<std::string> argv = {sweep::proc::exec_path(), "run", "-q", "--no-trace", "--force", "--fidelity", o_.fidelity, "--arch", o_.arch};
  for (const auto& [k, v] : o_.overrides) {
    argv.push_back("--set");
    argv.push_back(k + "=" + v);
  }
  argv.insert(argv.end(), {"--workload", g.string(), "--out", run.string()});
  if (o_.progress)
    std::cerr << (part == "iteration" ? fmt::format("serve: simulating iteration {} whole ({} tokens)\n", c, q)
                                      : fmt::format("serve: simulating {} (q {}, context {}), point {}\n", part, q, c, points_.size() + 1));
  const auto t0 = std::chrono::steady_clock::now();
  std::string out, err;
  const int status = sweep::proc::capture(argv, out, &err);
  p.cpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (status == 127 || status > 128)
    throw std::runtime_error(fmt::format("the simulation of {} did not run to its end (status {}): {}", g.string(), status, err));
  if (status != 0) {
    // The arch cannot run this part (an input problem of the arch or model, e.g. a tile that does
    // not fit): the child's own one-line error, with the part that met it.
    std::string line = err.empty() ? out : err;
    while (!line.empty() && line.back() == '\n') line.pop_back();
    if (const size_t nl = line.rfind('\n'); nl != std::string::npos) line = line.substr(nl + 1);
    if (status == 3) throw std::logic_error(fmt::format("serve: the simulation of {} failed: {}", g.string(), line));
    throw InputError(m_.path, 0, "", fmt::format("the arch cannot run the model's {} part (q {}, context {}; graph {}): {}",
                                                 part, q, c, g.string(), line));
  }
  std::ifstream in(run / "summary.json");
  const nlohmann::json s = nlohmann::json::parse(in);
  const nlohmann::json& total = s.at("total");
  p.seconds = total.at("time_s").get<double>();
  const double cycles = total.at("cycles").get<double>();
  p.ci95_s = cycles > 0 ? total.value("cycles_ci95", 0.0) * p.seconds / cycles : 0;
  if (!(p.seconds > 0)) throw std::logic_error(fmt::format("serve: {} took {} s", run.string(), p.seconds));
  fs::remove_all(run);
  if (!cached.empty()) {
    fs::create_directories(cached.parent_path());
    const fs::path tmp = cached.string() + ".tmp";
    std::ofstream(tmp) << nlohmann::json{{"seconds", p.seconds}, {"ci95_s", p.ci95_s}, {"part", part}, {"q", q}, {"c", c}}.dump() << "\n";
    fs::rename(tmp, cached);
  }
}

double StepPricer::dense(int64_t tokens) {
  const Bracket b = bracket(t_grid_, tokens);
  if (b.w != 0) ++off_grid_uses_[std::make_tuple(std::string("dense"), tokens, int64_t(0))];
  const double lo = simulate("dense", b.lo, 0);
  return b.w == 0 ? lo : lo + b.w * (simulate("dense", b.hi, 0) - lo);
}

double StepPricer::head(int64_t seqs) {
  const Bracket b = bracket(s_grid_, seqs);
  if (b.w != 0) ++off_grid_uses_[std::make_tuple(std::string("head"), seqs, int64_t(0))];
  const double lo = simulate("head", b.lo, 0);
  return b.w == 0 ? lo : lo + b.w * (simulate("head", b.hi, 0) - lo);
}

double StepPricer::attention(int64_t q, int64_t context) {
  const Bracket bq = bracket(t_grid_, q), bc = bracket(c_grid_, context);
  if (bq.w != 0 || bc.w != 0) ++off_grid_uses_[std::make_tuple(std::string("attention"), q, context)];
  auto at = [&](int64_t qq, int64_t cc) { return simulate("attention", qq, cc); };
  auto along_c = [&](int64_t qq) {
    const double lo = at(qq, bc.lo);
    return bc.w == 0 ? lo : lo + bc.w * (at(qq, bc.hi) - lo);
  };
  const double lo = along_c(bq.lo);
  return bq.w == 0 ? lo : lo + bq.w * (along_c(bq.hi) - lo);
}

void StepPricer::prefetch(int jobs) {
  std::vector<std::tuple<std::string, int64_t, int64_t>> keys;
  for (int64_t t : t_grid_) keys.emplace_back("dense", t, 0);
  for (int64_t c : c_grid_) keys.emplace_back("attention", 1, c);
  for (int64_t q : t_grid_)
    if (q > 1) keys.emplace_back("attention", q, 0);
  for (int64_t s : s_grid_)
    if (s <= 16) keys.emplace_back("head", s, 0);
  std::vector<PricePoint> todo;
  for (const auto& k : keys)
    if (!points_.count(k)) {
      PricePoint p;
      std::tie(p.part, p.q, p.c) = k;
      todo.push_back(p);
    }
  // Each worker takes the next point; run_graph touches only its own point and files.
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex m;
  std::vector<std::thread> workers;
  for (int j = 0; j < jobs; ++j)
    workers.emplace_back([&] {
      for (size_t i; (i = next++) < todo.size();) {
        try {
          PricePoint& p = todo[i];
          run_graph(graph(p.part, p.q, p.c), fmt::format("{}-q{}-c{}", p.part, p.q, p.c), p);
        } catch (...) {
          std::lock_guard<std::mutex> lock(m);
          if (!error) error = std::current_exception();
          next = todo.size();
        }
      }
    });
  for (std::thread& w : workers) w.join();
  if (error) std::rethrow_exception(error);
  for (const PricePoint& p : todo) points_[std::make_tuple(p.part, p.q, p.c)] = p;
}

std::vector<CheckPoint> StepPricer::check() {
  std::map<std::string, std::pair<std::tuple<std::string, int64_t, int64_t>, int64_t>> most;
  for (const auto& [k, n] : off_grid_uses_) {
    auto& m = most[std::get<0>(k)];
    if (n > m.second) m = {k, n};
  }
  std::vector<CheckPoint> out;
  const auto uses = off_grid_uses_;  // the interpolations below count again
  for (const auto& [part, m] : most) {
    CheckPoint c;
    c.part = part;
    c.q = std::get<1>(m.first);
    c.c = std::get<2>(m.first);
    c.uses = m.second;
    c.interpolated_s = part == "dense" ? dense(c.q) : part == "head" ? head(c.q) : attention(c.q, c.c);
    c.simulated_s = simulate(part, c.q, c.c);
    out.push_back(c);
  }
  off_grid_uses_ = uses;
  return out;
}

StepCost StepPricer::price(const Batch& b) {
  if (o_.whole_iterations) {
    PricePoint p;
    p.part = "iteration";
    p.q = b.tokens();
    p.c = int64_t(iterations_.size());
    std::string sig;
    for (const BatchItem& i : b.items) sig += fmt::format("{}:{}:{} ", i.q, i.context, int(i.emits));
    if (auto it = by_batch_.find(sig); it != by_batch_.end()) {
      iterations_.push_back(it->second);
    } else {
      run_graph(iteration_graph(b), fmt::format("iteration-{}", iterations_.size()), p);
      by_batch_[sig] = p;
      iterations_.push_back(p);
    }
    return {iterations_.back().seconds, 0};
  }
  double block = dense(b.tokens());
  for (const BatchItem& i : b.items) block += attention(i.q, i.context);
  StepCost cost;
  cost.seconds = double(m_.layers) * block + (b.emitting() > 0 ? head(b.emitting()) : 0.0);
  return cost;
}

}  // namespace cstsim::serve
