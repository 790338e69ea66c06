#pragma once
// Kernel names as different tools print them, reduced to keys that compare equal for the
// same kernel. Nsight Compute and Kineto demangle with different demanglers, so one kernel
// reads
//     Kineto: void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float,
//     false>(int, float, float const*, ...) ncu:    void
//     at::<unnamed>::vectorized_layer_norm_kernel<float, float, 0>(int, T2, const T1 *, ...)
// and either may be mangled (_ZN2at6native...) or cut short. Two keys:
//   - the exact key: the name with all whitespace removed and "(anonymous namespace)"
//     spelled "<unnamed>" (ncu's form);
//   - the base key: the function's own identifier, without return type, namespaces,
//     template arguments or parameters ("vectorized_layer_norm_kernel"); for a mangled
//     name, the last source name of its nested name. It survives truncation after the
//     identifier, and Numba's "copy_blocked[v1,...](...)" gives "copy_blocked".

#include <string>
#include <string_view>

namespace strata::storage {

/// The exact key (see above).
std::string kernelExactKey(std::string_view name);
/// The base key (see above); the exact key when no identifier can be found.
std::string kernelBaseKey(std::string_view name);

}  // namespace strata::storage
