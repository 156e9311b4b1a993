#pragma once
// The arch file's schema (core/schema.h): every key an arch YAML may hold and
// `--set` may override, in canonical order, with type, unit, default, range and doc.
#include "core/schema.h"

namespace cstsim {

const schema::Table& arch_schema();

}  // namespace cstsim
