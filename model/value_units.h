#pragma once
// Counter values for people: "7.279 GB", "1410 MHz", "312.5 mW", "0.8 %".

#include <string>
#include <string_view>

namespace strata::model {

/// `value` in `unit` with at most 4 significant digits. Magnitudes of 10^4 and more, or
/// below 1, take an SI prefix (k, M, G, T, P; m, u, n) in front of the unit, so a
/// byte counter reads "7.279 GB" rather than "7.279e+09 B"; "%" and unitless values
/// never take one below 1. An empty unit gives the bare number ("12.5k" for 12500).
std::string formatQuantity(double value, std::string_view unit);

}  // namespace strata::model
