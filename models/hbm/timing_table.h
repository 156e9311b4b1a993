#pragma once
// Timing rules as data (Ramulator-2 style rows). A standard is the list of timing names its
// config must give plus its rule table; one engine (TimingEngine) applies any table.
//
// A row {scope, after, before, gap} means: once a command in `after` is issued at cycle t,
// no command in `before` may be issued to the same `scope` instance (same bank / bank group /
// pseudo-channel / channel) before t + gap. With window = n > 0 the row limits how many
// `after` commands fit in a span: the next `before` command waits until gap cycles after the
// n-th most recent `after` command (tFAW: window 4). Gaps are expressions over the standard's
// timing names, in cycles: "tCWL + tBL + tWR"; integers and + - are allowed.
#include <map>
#include <string>
#include <vector>

#include "models/hbm/hbm_types.h"

namespace cstsim::hbm {

struct TimingRule {
  Scope scope;
  std::vector<Cmd> after;
  std::vector<Cmd> before;
  std::string gap;     // expression over timing names (cycles)
  int window = 0;      // 0: plain gap; n > 0: at most n `after` commands per `gap` cycles
  std::string source;  // where the row comes from
};

struct Standard {
  std::string name;                       // "HBM2", "HBM3": the config's `standard:` value
  std::vector<std::string> timing_names;  // every one is a required config field (timing.<name>)
  std::vector<TimingRule> rules;
};

// The shipped standards. find_standard throws std::invalid_argument naming the known ones.
const std::vector<Standard>& standards();
const Standard& find_standard(const std::string& name);
std::string standard_names();  // "HBM2, HBM3"

using TimingValues = std::map<std::string, Cycle>;  // timing name -> cycles

// Evaluates a gap expression; throws std::invalid_argument on an unknown name or bad syntax.
Cycle eval_gap(const std::string& expr, const TimingValues& timing);

// A row with its gap evaluated and its command lists as bit masks.
struct ResolvedRule {
  Scope scope;
  uint32_t after = 0;   // bit(cmd) set for each preceding command
  uint32_t before = 0;  // bit(cmd) set for each following command
  Cycle gap = 0;
  int window = 0;
  std::string label;  // "BankGroup (RD,RD) tCCD_L" - names the rule in checker messages
};

// Evaluates every row; rejects rows that cannot apply (a PREA/REF in a rule finer than a
// pseudo-channel, an empty command list, a negative gap) with std::invalid_argument.
std::vector<ResolvedRule> resolve_rules(const Standard& standard, const TimingValues& timing);

std::string rule_label(const TimingRule& rule);

}  // namespace cstsim::hbm
