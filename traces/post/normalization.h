#pragma once
// A normalization declares what a scalar V_CST* means (seed 000 §54-58):
// reference capacities C_ref, M_ref, N_ref, S_ref, weights w_C..w_S and the boundary.
#include <string>

namespace cstsim::post {

struct Normalization {
  std::string path, boundary;
  double c_ref = 0, m_ref = 0, n_ref = 0, s_ref = 0;  // PE, byte, link, byte
  double w_c = 0, w_m = 0, w_n = 0, w_s = 0;
};

// Throws InputError (file, line, key) on anything missing, unknown or non-positive.
Normalization load_normalization(const std::string& path);

}  // namespace cstsim::post
