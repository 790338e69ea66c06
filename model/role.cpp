#include "model/role.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace strata::model {

namespace {

constexpr std::array<std::string_view, kRoleCount> kRoleNames = {
    "useful", "comm", "sync", "transfer", "runtime", "idle"};

std::string lowered(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool containsAny(std::string_view haystack, std::initializer_list<std::string_view> needles)
{
    return std::any_of(needles.begin(), needles.end(), [&](std::string_view needle) {
        return haystack.find(needle) != std::string_view::npos;
    });
}

} // namespace

std::string_view roleName(Role role)
{
    return kRoleNames[static_cast<std::size_t>(role)];
}

std::optional<Role> parseRole(std::string_view name)
{
    for (std::size_t i = 0; i < kRoleNames.size(); ++i) {
        if (kRoleNames[i] == name)
            return static_cast<Role>(i);
    }
    return std::nullopt;
}

Role classifyRole(std::string_view name, std::string_view category)
{
    const std::string n = lowered(name);
    const std::string c = lowered(category);
    // Order matters: "ncclKernel_AllReduce" is comm even though its category is kernel;
    // "cudaMemcpyAsync" is a runtime call on the CPU but a transfer on the GPU.
    if (containsAny(n, {"nccl", "allreduce", "all_reduce", "allgather", "all_gather",
                        "reducescatter", "reduce_scatter", "broadcast", "alltoall", "c10d::",
                        "gloo", "record_param_comms", "mpi_", "sendrecv"}))
        return Role::Comm;
    if (c == "gpu_memcpy" || c == "gpu_memset" || c == "memcpy" || c == "memset"
        || ((c == "kernel" || c.empty()) && containsAny(n, {"memcpy", "memset"})))
        return Role::Transfer;
    // Kineto's cuda_sync: the GPU side of a synchronization ("Stream Sync", "Context
    // Sync", "Event Sync"), drawn on the streams; not compute.
    if (c == "cuda_sync"
        || containsAny(n, { "synchronize", "cudastreamwaitevent", "barrier", "wait" }))
        return Role::Sync;
    // OS runtime calls (Nsight Systems' OSRT_API): blocking ones are waits, the rest overhead.
    if (c == "osrt")
        return containsAny(n, {"poll", "select", "sleep", "futex", "mutex_lock", "pthread_join",
                               "sem_", "accept", "recv"})
            ? Role::Sync
            : Role::Runtime;
    if (c == "cuda_runtime" || c == "cuda_driver" || c == "runtime"
        || containsAny(n, {"cudalaunch", "culaunch", "hiplaunch", "cudamemcpy", "cudamemset"}))
        return Role::Runtime;
    if (n == "idle" || n == "not created")
        return Role::Idle;
    return Role::Useful;
}

} // namespace strata::model
