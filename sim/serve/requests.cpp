#include "sim/serve/requests.h"

#include <cmath>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "core/input_error.h"
#include "core/input_file.h"
#include "core/text.h"
#include "core/yaml_file.h"

namespace cstsim::serve {
namespace {

constexpr int64_t kMaxTokens = int64_t(1) << 24;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string f;
  std::istringstream in(line);
  while (std::getline(in, f, ',')) out.emplace_back(text::trim(f));
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

RequestSet read_trace(const std::string& path) {
  RequestSet set;
  set.source = path;
  std::istringstream in(read_input(path));
  std::string line;
  int n = 0;
  bool header = false;
  const std::vector<std::string> columns = {"arrival_s", "prompt_tokens", "output_tokens"};
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (text::trim(line).empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split(line);
    if (!header) {
      if (f != columns)
        throw InputError(path, n, "", fmt::format("the header must be {} (got {})", fmt::join(columns, ","), line));
      header = true;
      continue;
    }
    if (f.size() != columns.size())
      throw InputError(path, n, "", fmt::format("{} fields, expected {} ({})", f.size(), columns.size(), fmt::join(columns, ",")));
    Request r;
    r.id = int(set.requests.size());
    r.line = n;
    char* end = nullptr;
    r.arrival_s = std::strtod(f[0].c_str(), &end);
    if (f[0].empty() || *end || !std::isfinite(r.arrival_s) || r.arrival_s < 0)
      throw InputError(path, n, columns[0], fmt::format("must be a time in seconds >= 0, got '{}'", f[0]));
    if (!set.requests.empty() && r.arrival_s < set.requests.back().arrival_s)
      throw InputError(path, n, columns[0], fmt::format("{} s comes before the previous request's {} s (order the trace by arrival)",
                                                        f[0], set.requests.back().arrival_s));
    for (int k = 1; k < 3; ++k) {
      const long long v = std::strtoll(f[k].c_str(), &end, 10);
      if (f[k].empty() || *end || v < 1 || v > kMaxTokens)
        throw InputError(path, n, columns[k], fmt::format("must be a whole number of tokens from 1 to 2^24, got '{}'", f[k]));
      (k == 1 ? r.prompt : r.output) = v;
    }
    set.requests.push_back(r);
  }
  if (!header) throw InputError(path, 0, "", fmt::format("empty: expected the header {}", fmt::join(columns, ",")));
  if (set.requests.empty()) throw InputError(path, n, "", "no request after the header");
  return set;
}

// A length: a whole number (fixed) or {min, max} (uniform over the whole numbers between).
struct Length {
  int64_t lo = 0, hi = 0;
};
Length length_of(const std::string& path, const YAML::Node& v, const std::string& key) {
  auto whole = [&](const YAML::Node& x, const std::string& k) {
    const double d = yaml_number(path, x, k);
    if (d != std::floor(d) || d < 1 || d > double(kMaxTokens))
      throw InputError(path, line_of(x), k, fmt::format("must be a whole number of tokens from 1 to 2^24, got {}", x.Scalar()));
    return int64_t(d);
  };
  if (!v) throw InputError(path, 0, key, "is required");
  if (v.IsScalar()) {
    const int64_t n = whole(v, key);
    return {n, n};
  }
  if (!v.IsMap()) throw InputError(path, line_of(v), key, "expected a number of tokens or {min, max}");
  reject_unknown_keys(path, v, key + ".", {"min", "max"});
  if (!v["min"] || !v["max"]) throw InputError(path, line_of(v), key, "a range needs min and max");
  Length l{whole(v["min"], key + ".min"), whole(v["max"], key + ".max")};
  if (l.lo > l.hi) throw InputError(path, line_of(v["max"]), key + ".max", fmt::format("{} is below min {}", l.hi, l.lo));
  return l;
}

RequestSet generate(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  if (!root.IsMap()) throw InputError(path, line_of(root), "", "a request generator is a map (count, rate_per_s, prompt_tokens, output_tokens, seed)");
  reject_unknown_keys(path, root, "", {"count", "rate_per_s", "prompt_tokens", "output_tokens", "seed"});
  for (const char* k : {"count", "rate_per_s", "prompt_tokens", "output_tokens"})
    if (!root[k]) throw InputError(path, line_of(root), k, "is required");
  const double count = yaml_number(path, root["count"], "count");
  if (count != std::floor(count) || count < 1 || count > 1e7)
    throw InputError(path, line_of(root["count"]), "count", fmt::format("must be a whole number from 1 to 10^7, got {}", root["count"].Scalar()));
  const double rate = yaml_number(path, root["rate_per_s"], "rate_per_s");
  if (rate <= 0) throw InputError(path, line_of(root["rate_per_s"]), "rate_per_s", fmt::format("must be above 0, got {}", root["rate_per_s"].Scalar()));
  const Length prompt = length_of(path, root["prompt_tokens"], "prompt_tokens");
  const Length output = length_of(path, root["output_tokens"], "output_tokens");
  double seed = 1;
  if (root["seed"]) {
    seed = yaml_number(path, root["seed"], "seed");
    if (seed != std::floor(seed) || seed < 0 || seed > 4294967295.0)
      throw InputError(path, line_of(root["seed"]), "seed", fmt::format("must be a whole number from 0 to 2^32 - 1, got {}", root["seed"].Scalar()));
  }
  // One engine, drawn in a fixed order per request (gap, prompt, output): the same file gives the
  // same requests on every machine (std::mt19937_64's sequence is specified; the distributions
  // are not, so they are done here by hand).
  std::mt19937_64 rng{uint64_t(seed)};
  auto unit = [&] { return (double(rng() >> 11) + 0.5) * 0x1.0p-53; };  // (0, 1)
  auto draw = [&](const Length& l) { return l.lo + int64_t(unit() * double(l.hi - l.lo + 1)); };
  RequestSet set;
  set.source = path;
  set.generator = fmt::format("Poisson arrivals at {} /s, prompt {}..{}, output {}..{} tokens, seed {}", rate, prompt.lo,
                              prompt.hi, output.lo, output.hi, uint64_t(seed));
  double t = 0;
  for (int i = 0; i < int(count); ++i) {
    t += -std::log(unit()) / rate;
    Request r;
    r.id = i;
    r.arrival_s = t;
    r.prompt = draw(prompt);
    r.output = draw(output);
    set.requests.push_back(r);
  }
  return set;
}

}  // namespace

RequestSet load_requests(const std::string& path) {
  if (ends_with(path, ".csv")) return read_trace(path);
  if (ends_with(path, ".yaml") || ends_with(path, ".yml")) return generate(path);
  throw InputError(path, 0, "", "a request trace is .csv (arrival_s,prompt_tokens,output_tokens) or a generator .yaml");
}

}  // namespace cstsim::serve
