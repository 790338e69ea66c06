#pragma once
// Semantic roles: what an interval means for efficiency analysis. Every interval in a
// store carries one; the metrics (POP model) read "useful" time from them.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace strata::model {

enum class Role : std::uint8_t {
    Useful = 0,  ///< compute: CPU code, GPU compute kernels
    Comm = 1,  ///< MPI, NCCL/gloo collectives, point-to-point
    Sync = 2,  ///< waits, device/stream synchronize, barriers
    Transfer = 3,  ///< memcpy / memset
    Runtime = 4,  ///< kernel launch and other runtime API calls
    Idle = 5,  ///< explicitly idle states (Paraver "Idle", "Not created")
};

inline constexpr int kRoleCount = 6;
inline constexpr std::array<Role, kRoleCount> kAllRoles = {
    Role::Useful, Role::Comm, Role::Sync, Role::Transfer, Role::Runtime, Role::Idle};

/// "useful", "comm", "sync", "transfer", "runtime", "idle".
std::string_view roleName(Role role);
/// Inverse of roleName; nullopt for anything else.
std::optional<Role> parseRole(std::string_view name);

/// Default role of an interval from its name and category, following the conventions of
/// torch.profiler/Kineto, CUDA, NCCL and MPI. Importers with better knowledge (Paraver
/// states) assign roles themselves; users override with rules files.
Role classifyRole(std::string_view name, std::string_view category);

} // namespace strata::model
