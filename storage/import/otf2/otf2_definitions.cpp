#include "storage/import/otf2/otf2_definitions.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

namespace strata::storage {

namespace {

constexpr std::uint64_t kUndefinedTimestamp = ~std::uint64_t(0);
constexpr std::uint32_t kUndefinedRef32 = ~std::uint32_t(0);

Otf2Definitions& defs(void* userData)
{
    return *static_cast<Otf2Definitions*>(userData);
}

/// Runs a callback body; libotf2 is C, so no exception may cross it (the only one a body
/// can throw is bad_alloc, which ends the read as an error).
template<class Body>
OTF2_CallbackCode guarded(Body&& body) noexcept
{
    try {
        body();
        return OTF2_CALLBACK_SUCCESS;
    } catch (...) {
        return OTF2_CALLBACK_ERROR;
    }
}

OTF2_CallbackCode onClock(
    void* data, uint64_t resolution, uint64_t offset, uint64_t length, uint64_t realtime)
{
    Otf2Definitions& d = defs(data);
    d.clock = Otf2Clock(resolution, offset);
    d.traceLengthTicks = length;
    if (realtime != kUndefinedTimestamp)
        d.realtimeOriginNs = realtime;
    d.hasClock = true;
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode onString(void* data, OTF2_StringRef self, const char* text)
{
    return guarded([&] { defs(data).strings[self] = text ? text : ""; });
}

OTF2_CallbackCode onSystemTreeNode(void* data, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
    OTF2_StringRef className, OTF2_SystemTreeNodeRef parent)
{
    return guarded([&] {
        Otf2SystemTreeNode& node = defs(data).systemTree[self];
        node.name = name;
        node.className = className;
        node.hasParent = parent != kUndefinedRef32 && parent != self;
        node.parent = parent;
    });
}

OTF2_CallbackCode onSystemTreeDomain(
    void* data, OTF2_SystemTreeNodeRef node, OTF2_SystemTreeDomain domain)
{
    return guarded([&] {
        if (domain == OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY)
            defs(data).systemTree[node].sharedMemory = true;
    });
}

OTF2_CallbackCode onLocationGroup(void* data, OTF2_LocationGroupRef self, OTF2_StringRef name,
    OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent, OTF2_LocationGroupRef /*creator*/)
{
    return guarded([&] {
        defs(data).locationGroups[self] =
            Otf2LocationGroup { name, type, parent, parent != kUndefinedRef32 };
    });
}

OTF2_CallbackCode onLocation(void* data, OTF2_LocationRef self, OTF2_StringRef name,
    OTF2_LocationType type, uint64_t events, OTF2_LocationGroupRef group)
{
    return guarded([&] { defs(data).locations.push_back({ self, name, type, events, group }); });
}

OTF2_CallbackCode onRegion(void* data, OTF2_RegionRef self, OTF2_StringRef name,
    OTF2_StringRef /*canonicalName*/, OTF2_StringRef /*description*/, OTF2_RegionRole role,
    OTF2_Paradigm paradigm, OTF2_RegionFlag /*flags*/, OTF2_StringRef /*file*/, uint32_t /*begin*/,
    uint32_t /*end*/)
{
    return guarded([&] { defs(data).regions[self] = Otf2Region { name, role, paradigm }; });
}

OTF2_CallbackCode onGroup(void* data, OTF2_GroupRef self, OTF2_StringRef /*name*/,
    OTF2_GroupType type, OTF2_Paradigm paradigm, OTF2_GroupFlag /*flags*/, uint32_t count,
    const uint64_t* members)
{
    return guarded([&] {
        Otf2Group& group = defs(data).groups[self];
        group.type = type;
        group.paradigm = paradigm;
        group.members.assign(members, members + (members ? count : 0));
    });
}

OTF2_CallbackCode onComm(void* data, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
    OTF2_CommRef /*parent*/, OTF2_CommFlag /*flags*/)
{
    return guarded([&] { defs(data).comms[self] = Otf2Comm { name, group }; });
}

OTF2_CallbackCode onMetricMember(void* data, OTF2_MetricMemberRef self, OTF2_StringRef name,
    OTF2_StringRef /*description*/, OTF2_MetricType /*type*/, OTF2_MetricMode mode,
    OTF2_Type /*valueType*/, OTF2_Base base, int64_t exponent, OTF2_StringRef unit)
{
    return guarded([&] {
        const double radix = base == OTF2_BASE_BINARY ? 2.0 : 10.0;
        const double exp = static_cast<double>(std::clamp<int64_t>(exponent, -400, 400));
        defs(data).metricMembersById[self] =
            Otf2MetricMember { name, unit, mode, exponent == 0 ? 1.0 : std::pow(radix, exp) };
    });
}

OTF2_CallbackCode onMetricClass(void* data, OTF2_MetricRef self, uint8_t count,
    const OTF2_MetricMemberRef* members, OTF2_MetricOccurrence /*occurrence*/,
    OTF2_RecorderKind /*kind*/)
{
    return guarded(
        [&] { defs(data).metricClasses[self].assign(members, members + (members ? count : 0)); });
}

OTF2_CallbackCode onMetricInstance(void* data, OTF2_MetricRef self, OTF2_MetricRef metricClass,
    OTF2_LocationRef /*recorder*/, OTF2_MetricScope /*scope*/, uint64_t /*scopeRef*/)
{
    return guarded([&] { defs(data).metricInstances[self] = metricClass; });
}

OTF2_CallbackCode onAttribute(void* data, OTF2_AttributeRef self, OTF2_StringRef name,
    OTF2_StringRef /*description*/, OTF2_Type /*type*/)
{
    return guarded([&] { defs(data).attributes[self] = Otf2Attribute { name }; });
}

OTF2_CallbackCode onParameter(
    void* data, OTF2_ParameterRef self, OTF2_StringRef name, OTF2_ParameterType /*type*/)
{
    return guarded([&] { defs(data).parameters[self] = name; });
}

std::string lowered(std::string_view text)
{
    std::string out(text);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

void Otf2Definitions::setCallbacks(OTF2_GlobalDefReaderCallbacks* c)
{
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(c, onClock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(c, onString);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(c, onSystemTreeNode);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeDomainCallback(c, onSystemTreeDomain);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(c, onLocationGroup);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(c, onLocation);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(c, onRegion);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(c, onGroup);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(c, onComm);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(c, onMetricMember);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(c, onMetricClass);
    OTF2_GlobalDefReaderCallbacks_SetMetricInstanceCallback(c, onMetricInstance);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(c, onAttribute);
    OTF2_GlobalDefReaderCallbacks_SetParameterCallback(c, onParameter);
}

std::string_view Otf2Definitions::string(OTF2_StringRef ref) const
{
    const auto it = strings.find(ref);
    return it == strings.end() ? std::string_view() : std::string_view(it->second);
}

std::optional<OTF2_LocationRef> Otf2Definitions::rankLocation(
    OTF2_CommRef communicator, std::uint32_t rank, OTF2_LocationRef self) const
{
    const auto comm = comms.find(communicator);
    if (comm == comms.end())
        return std::nullopt;
    const auto group = groups.find(comm->second.group);
    if (group == groups.end())
        return std::nullopt;
    const Otf2Group& g = group->second;
    if (g.type == OTF2_GROUP_TYPE_COMM_SELF)
        return self;
    if (rank >= g.members.size())
        return std::nullopt;
    if (g.type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
        return g.members[rank];
    if (g.type != OTF2_GROUP_TYPE_COMM_GROUP)
        return std::nullopt;
    // A COMM_GROUP member is an index into its paradigm's COMM_LOCATIONS group.
    const std::uint64_t index = g.members[rank];
    for (const auto& [ref, other] : groups) {
        if (other.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && other.paradigm == g.paradigm)
            return index < other.members.size() ? std::optional(other.members[index])
                                                : std::nullopt;
    }
    return std::nullopt;
}

const std::vector<OTF2_MetricMemberRef>* Otf2Definitions::metricMembers(OTF2_MetricRef metric) const
{
    auto it = metricClasses.find(metric);
    if (it == metricClasses.end()) {
        const auto instance = metricInstances.find(metric);
        if (instance == metricInstances.end())
            return nullptr;
        it = metricClasses.find(instance->second);
    }
    return it == metricClasses.end() ? nullptr : &it->second;
}

model::Role otf2RegionRole(std::string_view name, OTF2_RegionRole role, OTF2_Paradigm paradigm)
{
    const std::string n = lowered(name);
    const bool waits = n.find("wait") != std::string::npos || n.find("barrier") != std::string::npos
        || n.find("probe") != std::string::npos;
    if (paradigm == OTF2_PARADIGM_MPI || n.rfind("mpi_", 0) == 0)
        return waits || role == OTF2_REGION_ROLE_BARRIER ? model::Role::Sync : model::Role::Comm;
    switch (role) {
    case OTF2_REGION_ROLE_BARRIER:
    case OTF2_REGION_ROLE_IMPLICIT_BARRIER:
    case OTF2_REGION_ROLE_TASK_WAIT:
    case OTF2_REGION_ROLE_THREAD_WAIT:
        return model::Role::Sync;
    case OTF2_REGION_ROLE_DATA_TRANSFER:
        return model::Role::Transfer;
    case OTF2_REGION_ROLE_ARTIFICIAL:
        return model::Role::Runtime;
    default:
        break;
    }
    if (paradigm == OTF2_PARADIGM_MEASUREMENT_SYSTEM)
        return model::Role::Runtime;
    return model::classifyRole(name, {});
}

std::string_view otf2ParadigmName(OTF2_Paradigm paradigm)
{
    static constexpr std::array<std::string_view, 25> kNames = { "unknown", "user", "compiler",
        "OpenMP", "MPI", "CUDA", "measurement", "pthread", "HMPP", "OmpSs", "hardware", "GASPI",
        "UPC", "SHMEM", "Windows threads", "Qt threads", "ACE threads", "TBB threads", "OpenACC",
        "OpenCL", "MTAPI", "sampling", "none", "HIP", "Kokkos" };
    return paradigm < kNames.size() ? kNames[paradigm] : "unknown";
}

std::string_view otf2CollectiveName(OTF2_CollectiveOp op)
{
    static constexpr std::array<std::string_view, 23> kNames = { "BARRIER", "BCAST", "GATHER",
        "GATHERV", "SCATTER", "SCATTERV", "ALLGATHER", "ALLGATHERV", "ALLTOALL", "ALLTOALLV",
        "ALLTOALLW", "ALLREDUCE", "REDUCE", "REDUCE_SCATTER", "SCAN", "EXSCAN",
        "REDUCE_SCATTER_BLOCK", "CREATE_HANDLE", "DESTROY_HANDLE", "ALLOCATE", "DEALLOCATE",
        "CREATE_HANDLE_AND_ALLOCATE", "DESTROY_HANDLE_AND_DEALLOCATE" };
    return op < kNames.size() ? kNames[op] : "UNKNOWN";
}

}  // namespace strata::storage
