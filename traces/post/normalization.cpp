#include "traces/post/normalization.h"

#include <filesystem>

#include <yaml-cpp/yaml.h>

#include "core/input_error.h"
#include "core/yaml_file.h"

namespace cstsim::post {
namespace {

// A reference capacity: {value: x, unit: u} with the unit its class requires.
double reference(const std::string& file, const YAML::Node& refs, const char* key, const char* unit) {
  const std::string name = std::string("reference.") + key;
  const YAML::Node n = refs[key];
  if (!n || !n.IsMap()) throw InputError(file, line_of(refs), name, std::string("required: {value, unit: ") + unit + "}");
  reject_unknown_keys(file, n, name + ".", {"value", "unit"});
  if (!n["unit"] || yaml_text(file, n["unit"], name + ".unit") != unit)
    throw InputError(file, line_of(n), name + ".unit", std::string("must be '") + unit + "'");
  if (!n["value"]) throw InputError(file, line_of(n), name + ".value", "required");
  const double v = yaml_number(file, n["value"], name + ".value");  // finite
  if (!(v > 0)) throw InputError(file, line_of(n), name + ".value", "must be positive");
  // A reference divides the run's integrals: one below 1e-9 (a denormal such as 1e-320 passed
  // "positive") or above 1e30 sends V_CST* to inf or 0.
  if (v < 1e-9 || v > 1e30)
    throw InputError(file, line_of(n), name + ".value", "must be between 1e-9 and 1e30, got " + n["value"].Scalar());
  return v;
}

double weight(const std::string& file, const YAML::Node& w, const char* key) {
  const YAML::Node n = w[key];
  if (!n) throw InputError(file, line_of(w), std::string("weights.") + key, "required");
  const double v = yaml_number(file, n, std::string("weights.") + key);  // finite
  if (v < 0) throw InputError(file, line_of(n), std::string("weights.") + key, "must not be negative");
  return v;
}

}  // namespace

Normalization load_normalization(const std::string& path) {
  const YAML::Node root = load_yaml_file(path);
  if (!root.IsMap()) throw InputError(path, 1, "", "expected a map");
  reject_unknown_keys(path, root, "", {"boundary", "reference", "weights", "source"});
  Normalization n;
  n.path = path;
  if (!root["boundary"]) throw InputError(path, 0, "boundary", "required: accelerator-only or node");
  n.boundary = yaml_text(path, root["boundary"], "boundary");
  if (n.boundary != "accelerator-only" && n.boundary != "node")
    throw InputError(path, line_of(root["boundary"]), "boundary", "must be accelerator-only or node");
  const YAML::Node refs = root["reference"];
  if (!refs || !refs.IsMap()) throw InputError(path, 0, "reference", "required: C_ref, M_ref, N_ref, S_ref");
  reject_unknown_keys(path, refs, "reference.", {"C_ref", "M_ref", "N_ref", "S_ref"});
  n.c_ref = reference(path, refs, "C_ref", "PE");
  n.m_ref = reference(path, refs, "M_ref", "byte");
  n.n_ref = reference(path, refs, "N_ref", "link");
  n.s_ref = reference(path, refs, "S_ref", "byte");
  const YAML::Node w = root["weights"];
  if (!w || !w.IsMap()) throw InputError(path, 0, "weights", "required: w_C, w_M, w_N, w_S");
  reject_unknown_keys(path, w, "weights.", {"w_C", "w_M", "w_N", "w_S"});
  n.w_c = weight(path, w, "w_C");
  n.w_m = weight(path, w, "w_M");
  n.w_n = weight(path, w, "w_N");
  n.w_s = weight(path, w, "w_S");
  return n;
}

}  // namespace cstsim::post
