#pragma once
// Paraver's standard state table (0 "Idle", 1 "Running", ... 31 "Freeing memory"), as
// Paraver and Extrae number them: the vocabulary the Paraver importer reads and the
// Paraver writer (export/) writes, so it lives where both may include it.

#include <cstdint>
#include <string_view>

namespace strata::storage {

/// Paraver's standard name of a state value, used for roles when there is no .pcf and for
/// the .pcf a writer produces; empty outside the table.
std::string_view paraverDefaultStateName(std::int64_t state);

}  // namespace strata::storage
