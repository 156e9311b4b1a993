#include "sim/serve/serve_cli.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/csv.h"
#include "core/input_error.h"
#include "core/out_file.h"
#include "core/staged_dir.h"
#include "sim/config/arch_spec.h"
#include "sim/serve/requests.h"
#include "sim/serve/scheduler.h"
#include "sim/serve/serve_model.h"
#include "sim/serve/step_pricer.h"
#include "sim/sweep/process.h"
#include "commit.h"
#include "version.h"

namespace cstsim {
namespace fs = std::filesystem;
namespace po = boost::program_options;
using namespace serve;

namespace {

constexpr const char* kUsage =
    "usage: cstsim serve --arch A --model M --requests R --out D [options]\n\n"
    "LLM serving on the modelled chip: requests arrive, a scheduler batches them every iteration\n"
    "(continuous batching, chunked prefill under a token budget, a paged KV cache in the chip's HBM,\n"
    "preemption by recompute when it is full), and each iteration's time is the chip's: the model's\n"
    "parts simulated by `cstsim run` at grid points and interpolated between them (summary.json\n"
    "says which and how far off).\n\n"
    "  M: a model file (configs/models/: llama2-7b.yaml).\n"
    "  R: a trace, CSV arrival_s,prompt_tokens,output_tokens, or a generator, YAML: count, rate_per_s,\n"
    "     prompt_tokens and output_tokens (N or {min, max}), seed (configs/requests/).\n\n"
    "writes D/requests.csv (per request: arrival, scheduled, first token, finish, TTFT, TPOT,\n"
    "preemptions), D/iterations.csv (per iteration: time, tokens, KV blocks), D/pricing.csv (every\n"
    "simulated point), D/summary.json (throughput, TTFT and TPOT percentiles, KV peak, V_M of the KV\n"
    "cache), D/trace/serve.json (each request's spans and the KV cache over time, for ui.perfetto.dev),\n"
    "D/graphs/ (the priced graphs).\n\n"
    "options";

double percentile(std::vector<double> v, double p) {  // linear between closest ranks
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = p / 100.0 * double(v.size() - 1);
  const size_t i = size_t(pos);
  return i + 1 < v.size() ? v[i] + (pos - double(i)) * (v[i + 1] - v[i]) : v[i];
}

nlohmann::ordered_json spread(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return {{"mean", v.empty() ? 0 : sum / double(v.size())}, {"p50", percentile(v, 50)}, {"p90", percentile(v, 90)},
          {"p99", percentile(v, 99)}, {"max", v.empty() ? 0 : *std::max_element(v.begin(), v.end())}};
}

std::string num(double x) { return fmt::format("{}", x); }  // shortest text that reads back the same double

}  // namespace

int serve_command(const std::vector<std::string>& args) {
  std::string arch_path, model_path, requests_path, out_dir, cache_dir, fidelity = "sampled", pricing = "parts";
  std::vector<std::string> sets;
  int64_t token_budget = 512, max_seqs = 256, block_tokens = 16;
  bool no_check = false;
  int jobs = 1;
  double kv_gib = 0;
  bool force = false, quiet = false;
  po::options_description desc(kUsage);
  desc.add_options()("help,h", "show this help")
      ("arch", po::value(&arch_path), "the chip: a cstsim arch YAML (configs/arch/npu-llm-hbm3.yaml)")
      ("model", po::value(&model_path), "the model: a model YAML (configs/models/)")
      ("requests", po::value(&requests_path), "the requests: a trace .csv or a generator .yaml")
      ("out", po::value(&out_dir), "the run directory to write")
      ("force", po::bool_switch(&force), "replace an existing run directory")
      ("set", po::value(&sets)->composing(), "KEY=VALUE: an arch override, as cstsim run --set")
      ("token-budget", po::value(&token_budget)->default_value(512), "tokens an iteration processes at most (chunked prefill)")
      ("max-seqs", po::value(&max_seqs)->default_value(256), "requests in one iteration at most")
      ("block-tokens", po::value(&block_tokens)->default_value(16), "tokens per KV-cache block")
      ("kv-gib", po::value(&kv_gib), "the KV cache's capacity in GiB (default: the arch's HBM less the model's weights)")
      ("fidelity", po::value(&fidelity)->default_value("sampled"), "the priced parts' simulation: sampled | exact")
      ("pricing", po::value(&pricing)->default_value("parts"), "parts: the model's parts at grid points, interpolated and "
                                                                 "summed; iteration: every iteration's whole graph simulated "
                                                                 "(slow: what `parts` estimates)")
      ("jobs,j", po::value(&jobs)->default_value(1), "simulations at a time; above 1 the grid's common points are simulated "
                                                     "first, in parallel (less wall time; some may go unused)")
      ("no-check", po::bool_switch(&no_check), "skip the grid's check (by default each part's most used point off the grid "
                                               "is simulated at the end and compared with its interpolation)")
      ("cache", po::value(&cache_dir), "a directory memoizing the priced parts across runs (keyed by arch, model part, "
                                       "fidelity and version)")
      ("quiet,q", po::bool_switch(&quiet), "no progress");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError::usage("serve", "", e.what());
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  for (const auto& [flag, v] : {std::pair<const char*, const std::string*>{"--arch", &arch_path}, {"--model", &model_path},
                                {"--requests", &requests_path}, {"--out", &out_dir}})
    if (v->empty()) throw InputError::usage("serve", flag, "is required (cstsim serve --help)");
  for (const auto& [flag, v] : {std::pair<const char*, int64_t>{"--token-budget", token_budget}, {"--max-seqs", max_seqs},
                                {"--block-tokens", block_tokens}})
    if (v < 1 || v > (int64_t(1) << 20)) throw InputError::usage("serve", flag, fmt::format("must be from 1 to 2^20, got {}", v));
  if (fidelity != "sampled" && fidelity != "exact")
    throw InputError::usage("serve", "--fidelity", fmt::format("must be sampled or exact, got '{}'", fidelity));
  if (jobs < 1 || jobs > 256) throw InputError::usage("serve", "--jobs", fmt::format("must be from 1 to 256, got {}", jobs));
  if (pricing != "parts" && pricing != "iteration")
    throw InputError::usage("serve", "--pricing", fmt::format("must be parts or iteration, got '{}'", pricing));
  if (vm.count("kv-gib") && !(kv_gib > 0 && std::isfinite(kv_gib)))
    throw InputError::usage("serve", "--kv-gib", fmt::format("must be above 0, got {}", kv_gib));

  const Overrides overrides = parse_overrides(sets);
  const ArchSpec arch = load_arch(arch_path, overrides);
  const ServeModel model = load_serve_model(model_path);
  const RequestSet requests = load_requests(requests_path);

  // The KV cache: what HBM holds beside the weights, in blocks.
  const double hbm_bytes = double(arch.hbm_spec.org.capacity_bytes());
  if (arch.memory != MemoryMode::Hierarchy && arch.memory != MemoryMode::Hbm && !vm.count("kv-gib"))
    throw InputError(arch_path, 0, "memory", "serving needs the chip's HBM (memory: hbm or hierarchy) or --kv-gib");
  const double kv_bytes = vm.count("kv-gib") ? kv_gib * double(1ull << 30) : hbm_bytes - double(model.weight_bytes());
  if (kv_bytes < double(model.kv_bytes_per_token() * block_tokens))
    throw InputError(model_path, 0, "",
                     fmt::format("the weights ({:.2f} GiB) leave {:.2f} GiB of the arch's {:.2f} GiB HBM, not one KV block ({} tokens x {} B); "
                                 "give --kv-gib or a larger HBM",
                                 double(model.weight_bytes()) / double(1ull << 30), kv_bytes / double(1ull << 30),
                                 hbm_bytes / double(1ull << 30), block_tokens, model.kv_bytes_per_token()));
  SchedulerConfig sc;
  sc.token_budget = token_budget;
  sc.max_seqs = max_seqs;
  sc.block_tokens = block_tokens;
  sc.kv_blocks = int64_t(kv_bytes / double(model.kv_bytes_per_token() * block_tokens));

  check_out_target(out_dir, {arch_path, model_path, requests_path}, force);
  StagedDir staged(out_dir, force);
  const fs::path dir = staged.path();

  PricerOptions po_;
  po_.arch = fs::absolute(arch_path).string();
  po_.overrides = overrides;
  po_.fidelity = fidelity;
  po_.work_dir = dir.string();
  po_.cache_dir = cache_dir;
  po_.arch_key = canonical_text(arch);
  po_.token_budget = token_budget;
  po_.max_seqs = max_seqs;
  int64_t longest = 1;
  for (const Request& r : requests.requests) longest = std::max(longest, r.prompt + r.output);
  po_.max_context = longest;
  po_.progress = !quiet;
  po_.whole_iterations = pricing == "iteration";
  StepPricer pricer(po_, model);
  if (jobs > 1 && pricing == "parts") pricer.prefetch(jobs);
  const ServeResult res = serve::serve(requests, sc, [&](const Batch& b) { return pricer.price(b); });
  const std::vector<CheckPoint> checks = pricing == "parts" && !no_check ? pricer.check() : std::vector<CheckPoint>{};
  fs::remove_all(dir / "runs");

  // requests.csv
  std::string rcsv = csv::row({"request", "arrival_s", "prompt_tokens", "output_tokens", "scheduled_s", "first_token_s",
                               "finish_s", "ttft_s", "tpot_s", "latency_s", "preemptions", "recomputed_tokens"});
  std::vector<double> ttft, tpot, latency;
  int64_t out_tokens = 0, prompt_tokens = 0, preemptions = 0, recomputed = 0;
  for (const RequestLog& l : res.requests) {
    const Request& r = l.request;
    const double t1 = l.first_token_s - r.arrival_s, lat = l.finish_s - r.arrival_s;
    const double per = r.output > 1 ? (l.finish_s - l.first_token_s) / double(r.output - 1) : 0;
    ttft.push_back(t1);
    latency.push_back(lat);
    if (r.output > 1) tpot.push_back(per);
    out_tokens += r.output;
    prompt_tokens += r.prompt;
    preemptions += l.preemptions;
    recomputed += l.recomputed_tokens;
    rcsv += csv::row({std::to_string(r.id), num(r.arrival_s), std::to_string(r.prompt), std::to_string(r.output), num(l.scheduled_s),
                      num(l.first_token_s), num(l.finish_s), num(t1), r.output > 1 ? num(per) : "", num(lat),
                      std::to_string(l.preemptions), std::to_string(l.recomputed_tokens)});
  }
  io::write_file(dir / "requests.csv", rcsv);

  // iterations.csv, and the KV cache's residency integral (byte·s) over the run.
  const double block_bytes = double(model.kv_bytes_per_token() * block_tokens);
  std::string icsv = csv::row({"iteration", "start_s", "seconds", "tokens", "prefill_tokens", "decode_tokens", "seqs",
                               "kv_blocks", "kv_bytes", "waiting", "running", "preempted"});
  double v_kv = 0, in_system_integral = 0;
  for (size_t i = 0; i < res.iterations.size(); ++i) {
    const IterationLog& it = res.iterations[i];
    v_kv += double(it.kv_blocks) * block_bytes * it.seconds;
    in_system_integral += double(it.waiting + it.running) * it.seconds;
    icsv += csv::row({std::to_string(i), num(it.start_s), num(it.seconds), std::to_string(it.tokens), std::to_string(it.prefill_tokens),
                      std::to_string(it.decode_tokens), std::to_string(it.seqs), std::to_string(it.kv_blocks),
                      num(double(it.kv_blocks) * block_bytes), std::to_string(it.waiting), std::to_string(it.running),
                      std::to_string(it.preempted)});
  }
  io::write_file(dir / "iterations.csv", icsv);

  // trace/serve.json: Chrome trace-event JSON (ui.perfetto.dev opens it): a track per request
  // with its spans (queued, prefill, decode), and counters of the KV cache and the queue.
  {
    nlohmann::json ev = nlohmann::json::array();
    auto us = [](double s) { return s * 1e6; };
    ev.push_back({{"ph", "M"}, {"pid", 1}, {"name", "process_name"}, {"args", {{"name", "requests"}}}});
    ev.push_back({{"ph", "M"}, {"pid", 2}, {"name", "process_name"}, {"args", {{"name", "chip"}}}});
    for (const RequestLog& l : res.requests) {
      const Request& r = l.request;
      const int tid = r.id + 1;
      ev.push_back({{"ph", "M"}, {"pid", 1}, {"tid", tid}, {"name", "thread_name"}, {"args", {{"name", fmt::format("request {}", r.id)}}}});
      auto span = [&](const char* name, double a, double b, nlohmann::json args) {
        if (b > a) ev.push_back({{"ph", "X"}, {"pid", 1}, {"tid", tid}, {"name", name}, {"ts", us(a)}, {"dur", us(b - a)}, {"args", args}});
      };
      span("queued", r.arrival_s, l.scheduled_s, {{"prompt_tokens", r.prompt}});
      span("prefill", l.scheduled_s, l.first_token_s, {{"prompt_tokens", r.prompt}, {"preemptions", l.preemptions}});
      span("decode", l.first_token_s, l.finish_s, {{"output_tokens", r.output}});
    }
    for (size_t i = 0; i < res.iterations.size(); ++i) {
      const IterationLog& it = res.iterations[i];
      ev.push_back({{"ph", "X"}, {"pid", 2}, {"tid", 1}, {"name", "iteration"}, {"ts", us(it.start_s)}, {"dur", us(it.seconds)},
                    {"args", {{"tokens", it.tokens}, {"prefill_tokens", it.prefill_tokens}, {"seqs", it.seqs}}}});
      const double end = it.start_s + it.seconds;
      ev.push_back({{"ph", "C"}, {"pid", 2}, {"name", "kv_cache_bytes"}, {"ts", us(end)}, {"args", {{"bytes", double(it.kv_blocks) * block_bytes}}}});
      ev.push_back({{"ph", "C"}, {"pid", 2}, {"name", "requests"}, {"ts", us(end)}, {"args", {{"running", it.running}, {"waiting", it.waiting}}}});
    }
    fs::create_directories(dir / "trace");
    io::write_file(dir / "trace" / "serve.json", nlohmann::json{{"traceEvents", ev}, {"displayTimeUnit", "ms"}}.dump() + "\n");
  }

  std::string pcsv = csv::row({"part", "q", "context", "seconds", "ci95_s", "from_cache", "wall_s"});
  int simulated = 0;
  double child_s = 0;
  auto point_row = [&](const PricePoint& p) {
    simulated += !p.from_cache;
    child_s += p.cpu_s;
    pcsv += csv::row({p.part, std::to_string(p.q), std::to_string(p.c), num(p.seconds), num(p.ci95_s), p.from_cache ? "1" : "0", num(p.cpu_s)});
  };
  for (const auto& [k, p] : pricer.points()) point_row(p);
  for (const PricePoint& p : pricer.iterations()) point_row(p);  // --pricing iteration: q tokens, c the iteration
  io::write_file(dir / "pricing.csv", pcsv);

  const double span = res.end_s;
  nlohmann::ordered_json j;
  j["version"] = CSTSIM_VERSION;
  j["commit"] = CSTSIM_COMMIT;
  j["arch"] = {{"name", arch.name}, {"source", arch_path}, {"hbm_bytes", hbm_bytes}};
  j["model"] = {{"name", model.name}, {"source", model_path}, {"layers", model.layers}, {"weight_bytes", model.weight_bytes()},
                {"kv_bytes_per_token", model.kv_bytes_per_token()}};
  j["requests"] = {{"source", requests_path}, {"generator", requests.generator}, {"count", res.requests.size()},
                   {"prompt_tokens", prompt_tokens}, {"output_tokens", out_tokens}};
  j["scheduler"] = {{"policy", "continuous batching, running first, chunked prefill, FCFS admission"},
                    {"token_budget", token_budget}, {"max_seqs", max_seqs}, {"preemption", "recompute"}};
  j["makespan_s"] = span;
  j["iterations"] = res.iterations.size();
  j["throughput"] = {{"output_tokens_per_s", double(out_tokens) / span},
                     {"tokens_per_s", double(out_tokens + prompt_tokens) / span},
                     {"requests_per_s", double(res.requests.size()) / span}};
  j["ttft_s"] = spread(ttft);
  j["tpot_s"] = spread(tpot);
  j["latency_s"] = spread(latency);
  j["preemptions"] = preemptions;
  j["recomputed_tokens"] = recomputed;
  j["kv_cache"] = {{"block_tokens", block_tokens}, {"blocks", sc.kv_blocks}, {"bytes", double(sc.kv_blocks) * block_bytes},
                   {"peak_blocks", res.kv_blocks_peak}, {"peak_bytes", double(res.kv_blocks_peak) * block_bytes},
                   {"V_M_byte_s", v_kv}, {"mean_bytes", span > 0 ? v_kv / span : 0}};
  j["in_system_mean"] = span > 0 ? in_system_integral / span : 0;
  j["pricing"] = {{"method", pricing == "parts" ? "parts simulated by cstsim run at grid points, interpolated between them; "
                                                 "iteration = layers x (dense(T) + sum attention(q, c)) + head(S)"
                                               : "every iteration's whole graph simulated by cstsim run"},
                  {"estimate", pricing == "parts"},
                  {"fidelity", fidelity},
                  {"points", pricer.points().size()},
                  {"simulated", simulated},
                  {"simulation_wall_s", child_s},
                  {"check", [&] {
                     nlohmann::ordered_json c = nlohmann::ordered_json::array();
                     for (const CheckPoint& k : checks)
                       c.push_back({{"part", k.part}, {"q", k.q}, {"context", k.c}, {"uses", k.uses}, {"interpolated_s", k.interpolated_s},
                                    {"simulated_s", k.simulated_s}, {"error", k.error()}});
                     return c;
                   }()},
                  {"check_max_abs_error", [&] {
                     double m = 0;
                     for (const CheckPoint& k : checks) m = std::max(m, std::abs(k.error()));
                     return m;
                   }()},
                  {"token_grid", pricer.token_grid()},
                  {"context_grid", pricer.context_grid()}};
  j["energy"] = {{"status", "not priced yet: the parts run with --no-trace, which has no energy"}};
  io::write_file(dir / "summary.json", j.dump(2) + "\n");
  staged.commit();

  if (!quiet)
    std::cout << fmt::format(
        "serve: {} requests of {} on {} in {:.3f} s simulated ({} iterations)\n"
        "  throughput {:.1f} output tokens/s   TTFT p50 {:.4f} s p99 {:.4f} s   TPOT p50 {:.5f} s p99 {:.5f} s\n"
        "  KV cache {} blocks of {} tokens, peak {} ({:.1f} %)   preemptions {}\n"
        "  priced from {} simulations ({} run, the rest from the cache){}\n  wrote {}\n",
        res.requests.size(), model.name, arch.name, span, res.iterations.size(), double(out_tokens) / span,
        percentile(ttft, 50), percentile(ttft, 99), percentile(tpot, 50), percentile(tpot, 99), sc.kv_blocks, block_tokens,
        res.kv_blocks_peak, 100.0 * double(res.kv_blocks_peak) / double(sc.kv_blocks), preemptions,
        pricer.points().size() + pricer.iterations().size(), simulated,
        [&] {
          std::string t;
          for (const CheckPoint& k : checks) t += fmt::format("{}{} {:+.2f} %", t.empty() ? "; grid check: " : ", ", k.part, 100 * k.error());
          return t;
        }(),
        out_dir);
  return 0;
}

}  // namespace cstsim
