#include "sim/workload/scalesim_csv.h"

#include <fmt/format.h>

#include <climits>
#include <fstream>
#include <vector>

#include "core/input_error.h"
#include "core/input_file.h"
#include "core/text.h"

namespace cstsim {
namespace {

enum class Form { Gemm, Conv };

// Field names as SCALE-Sim's headers spell them; used as the key in errors.
const char* const kGemmFields[] = {"Layer", "M", "N", "K"};
const char* const kConvFields[] = {"Layer name", "IFMAP Height", "IFMAP Width", "Filter Height", "Filter Width",
                                   "Channels",   "Num Filter",   "Strides",     "Stride Width"};

std::vector<std::string> split_row(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    fields.emplace_back(text::trim(std::string_view(line).substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  // SCALE-Sim drops whatever follows a row's last comma: the empty field after its trailing
  // comma, or a note such as `#dw`. Anything else there is read (the trailing comma is optional
  // here), so a mistyped last number is an error rather than a silently missing stride.
  if (fields.size() > 1 && (fields.back().empty() || fields.back()[0] == '#')) fields.pop_back();
  return fields;
}

Form detect_form(const std::vector<std::string>& header, const std::string& raw,
                 const std::string& path, int line) {
  if (header.size() < 2 || text::parse_int(header[1]))
    throw InputError(path, line, "",
                     "first line must be a SCALE-Sim header ('Layer, M, N, K,' or "
                     "'Layer name, IFMAP Height, ...'), got " + text::quoted(text::trim(raw)));
  return text::lower(header[1]) == "m" ? Form::Gemm : Form::Conv;
}

struct Row {
  const std::string& path;
  int line;
  const std::vector<std::string>& fields;
  const char* const* names;

  int64_t positive(size_t i) const {
    auto v = text::parse_int(fields[i]);
    if (!v || *v <= 0)
      throw InputError(path, line, names[i],
                       "must be a positive integer, got " + text::quoted(fields[i]));
    if (*v > INT_MAX)
      throw InputError(path, line, names[i],
                       fmt::format("must be at most {}, got {}", INT_MAX, text::quoted(fields[i])));
    return *v;
  }
  std::string name() const {
    if (fields[0].empty()) throw InputError(path, line, names[0], "must not be empty");
    return fields[0];
  }
};

Layer gemm_row(const Row& r) {
  if (r.fields.size() != 4)
    throw InputError(r.path, r.line, "", fmt::format("expected 4 fields, found {}", r.fields.size()));
  Layer layer;
  layer.name = r.name();
  layer.M = r.positive(1);
  layer.N = r.positive(2);
  layer.K = r.positive(3);
  return layer;
}

ConvShape conv_row(const Row& r) {
  // SCALE-Sim's reader (topology_utils.py append_topo_arrays) copies a missing Stride Width from
  // Strides but has no default for Strides: a row without it fails there (IndexError), so it is
  // refused here rather than run at stride 1.
  if (r.fields.size() == 7)
    throw InputError(r.path, r.line, "Strides", "missing (SCALE-Sim has no default for it; write 1 for unit stride)");
  if (r.fields.size() < 8 || r.fields.size() > 9)
    throw InputError(r.path, r.line, "",
                     fmt::format("expected 8 or 9 fields (Stride Width optional), found {}", r.fields.size()));
  ConvShape c;
  std::string name = r.name();
  c.ifmap_h = r.positive(1);
  c.ifmap_w = r.positive(2);
  c.filter_h = r.positive(3);
  c.filter_w = r.positive(4);
  c.channels = r.positive(5);
  c.filters = r.positive(6);
  c.stride = r.positive(7);
  c.stride_w = r.fields.size() == 9 ? r.positive(8) : c.stride;
  if (c.filter_h > c.ifmap_h)
    throw InputError(r.path, r.line, "Filter Height",
                     fmt::format("larger than IFMAP Height ({} > {})", c.filter_h, c.ifmap_h));
  if (c.filter_w > c.ifmap_w)
    throw InputError(r.path, r.line, "Filter Width",
                     fmt::format("larger than IFMAP Width ({} > {})", c.filter_w, c.ifmap_w));
  int64_t k = 0;
  if (__builtin_mul_overflow(c.filter_h * c.filter_w, c.channels, &k))
    throw InputError(r.path, r.line, "Channels", "Filter Height x Filter Width x Channels overflows");
  return c;
}

// One row's layers. SCALE-Sim (topology_utils.py) runs a layer whose name contains "DP" (a
// depthwise convolution) as one convolution per input channel, each of one channel, named
// <name>Channel_<i>.
void append_conv_layers(const Row& r, std::vector<Layer>& out) {
  ConvShape c = conv_row(r);
  const std::string name = r.name();
  if (name.find("DP") == std::string::npos) {
    out.push_back(lower_conv(name, c));
    return;
  }
  const int64_t channels = c.channels;
  if (channels > 65536)
    throw InputError(r.path, r.line, "Channels",
                     fmt::format("a DP layer becomes one layer per channel; at most 65536, got {}", channels));
  c.channels = 1;
  for (int64_t i = 0; i < channels; ++i) out.push_back(lower_conv(name + "Channel_" + std::to_string(i), c));
}

}  // namespace

Workload read_scalesim_csv(const std::string& path) {
  InputStream in(path);
  Workload w;
  w.name = text::stem(path);
  w.source = path;

  bool have_header = false;
  Form form = Form::Conv;
  std::string raw;
  for (int line = 1; std::getline(in, raw); ++line) {
    if (line == 1 && raw.compare(0, 3, "\xEF\xBB\xBF") == 0) raw.erase(0, 3);  // UTF-8 BOM
    if (const auto at = text::invalid_utf8(raw))
      throw InputError(path, line, "", fmt::format("not UTF-8 (byte 0x{:02x} in column {})", static_cast<unsigned char>(raw[*at]), *at + 1));
    if (text::trim(raw).empty()) continue;
    std::vector<std::string> fields = split_row(raw);
    if (!have_header) {
      form = detect_form(fields, raw, path, line);
      have_header = true;
      continue;
    }
    Row row{path, line, fields, form == Form::Gemm ? kGemmFields : kConvFields};
    const size_t first = w.layers.size();
    if (form == Form::Gemm) w.layers.push_back(gemm_row(row));
    else append_conv_layers(row, w.layers);
    for (size_t i = first; i < w.layers.size(); ++i) w.layers[i].source_line = line;
  }
  if (w.layers.empty()) throw InputError(path, 0, "", "no layers");
  return w;
}

}  // namespace cstsim
