#pragma once
// The requests a serving run receives (`cstsim serve --requests`): a trace as CSV
// (arrival_s,prompt_tokens,output_tokens, a header line first) or a generator as YAML (Poisson
// arrivals at `rate_per_s`, prompt and output lengths fixed or uniform, from `seed`). Schema:
// configs/README.md, "Serving".
#include <cstdint>
#include <string>
#include <vector>

namespace cstsim::serve {

struct Request {
  int id = 0;
  double arrival_s = 0;
  int64_t prompt = 0, output = 0;  // tokens; output >= 1 (the first comes with the prefill)
  int line = 0;                    // in a trace file; 0 when generated
};

struct RequestSet {
  std::string source;      // the file
  std::string generator;   // "" for a trace; else what drew them, for the summary
  std::vector<Request> requests;  // by arrival, ids in file order
};

// Throws InputError (file, line, key) on every bad value: a time that is negative or goes back, a
// length below 1, an unknown key or column.
RequestSet load_requests(const std::string& path);

}  // namespace cstsim::serve
