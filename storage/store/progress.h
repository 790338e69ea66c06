#pragma once

#include <cstdint>
#include <functional>

namespace strata::storage {

/// Reports work done out of a total (bytes, events, tiles: the caller says which).
/// Returning false asks the work to stop: it throws storage::Cancelled and cleans up.
using ProgressFn = std::function<bool(std::uint64_t done, std::uint64_t total)>;

} // namespace strata::storage
