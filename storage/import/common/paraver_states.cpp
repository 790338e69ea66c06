#include "storage/import/common/paraver_states.h"

#include <array>

namespace strata::storage {

namespace {

constexpr std::array<std::string_view, 32> kStandardStates = { "Idle", "Running", "Not created",
    "Waiting a message", "Blocking Send", "Synchronization", "Test/Probe",
    "Scheduling and Fork/Join", "Wait/WaitAll", "Blocked", "Immediate Send", "Immediate Receive",
    "I/O", "Group Communication", "Tracing Disabled", "Others", "Send Receive", "Memory transfer",
    "Profiling", "On-line analysis", "Remote memory access", "Atomic memory operation",
    "Memory ordering operation", "Distributed locking", "Overhead", "One-sided op",
    "Startup latency", "Waiting links", "Data copy", "RTT", "Allocating memory", "Freeing memory" };

}  // namespace

std::string_view paraverDefaultStateName(std::int64_t state)
{
    if (state < 0 || state >= std::int64_t(kStandardStates.size()))
        return {};
    return kStandardStates[std::size_t(state)];
}

}  // namespace strata::storage
