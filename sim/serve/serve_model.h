#pragma once
// The model a serving run serves (`cstsim serve --model`): a decoder-only transformer by its sizes,
// from which the serving loop makes the graphs it prices (sim/serve/step_pricer.h) and the KV
// cache's bytes per token. Schema: configs/README.md, "Serving".
#include <cstdint>
#include <string>

namespace cstsim::serve {

struct ServeModel {
  std::string name, source, path;
  int64_t layers = 0;     // decoder blocks
  int64_t hidden = 0;     // model width
  int64_t heads = 0;      // query heads
  int64_t kv_heads = 0;   // key/value heads (GQA: fewer than heads)
  int64_t head_dim = 0;   // hidden / heads unless given
  int64_t ffn = 0;        // the FFN's inner width
  std::string ffn_kind;   // swiglu (gate, up, down) | gelu (up, down)
  int64_t vocab = 0;
  std::string dtype;      // weights and activations
  std::string kv_dtype;   // the KV cache (dtype unless given)
  std::string attention;  // materialized | flash: how each request's attention runs
  int dtype_bits = 0, kv_bits = 0;

  int64_t kv_width() const { return kv_heads * head_dim; }
  // Bytes one token holds in the KV cache: K and V rows in every block.
  int64_t kv_bytes_per_token() const { return 2 * layers * kv_width() * kv_bits / 8; }
  // Bytes of every weight: embedding, blocks (projections, FFN, norms), final norm and LM head.
  int64_t weight_bytes() const;
};

// Reads a model YAML. Throws InputError (file, line, key) on every bad value.
ServeModel load_serve_model(const std::string& path);

}  // namespace cstsim::serve
