#pragma once
// The global definitions of an OTF2 archive (traces.def), kept as plain tables for the
// event pass: strings, regions, the system tree (machine > node), location groups
// (processes / MPI ranks, accelerators), locations (threads, GPU streams, metric
// recorders), groups and communicators (to turn an MPI rank into a location), metric
// members and classes, attributes and parameters, and the clock properties.
//
// Filled by libotf2's global definition reader through registerCallbacks(); everything is
// keyed by the definition's reference, in hash maps so that sparse or hostile references
// cost no more than the definitions that name them. Private to the OTF2 importer (it
// includes libotf2's headers, which storage links privately).

#include "model/role.h"
#include "storage/import/otf2/otf2_clock.h"

#include <otf2/otf2.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace strata::storage {

struct Otf2Region
{
    OTF2_StringRef name = 0;
    OTF2_RegionRole role = OTF2_REGION_ROLE_UNKNOWN;
    OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
};

struct Otf2SystemTreeNode
{
    OTF2_StringRef name = 0;
    OTF2_StringRef className = 0;
    OTF2_SystemTreeNodeRef parent = 0;
    bool hasParent = false;
    bool sharedMemory = false;  ///< a SHARED_MEMORY domain: a compute node
};

struct Otf2LocationGroup
{
    OTF2_StringRef name = 0;
    OTF2_LocationGroupType type = OTF2_LOCATION_GROUP_TYPE_UNKNOWN;
    OTF2_SystemTreeNodeRef systemTreeParent = 0;
    bool hasParent = false;
};

struct Otf2Location
{
    OTF2_LocationRef id = 0;
    OTF2_StringRef name = 0;
    OTF2_LocationType type = OTF2_LOCATION_TYPE_UNKNOWN;
    std::uint64_t eventCount = 0;  ///< as declared by the writer
    OTF2_LocationGroupRef group = 0;
};

struct Otf2Group
{
    OTF2_GroupType type = OTF2_GROUP_TYPE_UNKNOWN;
    OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
    std::vector<std::uint64_t> members;
};

struct Otf2Comm
{
    OTF2_StringRef name = 0;
    OTF2_GroupRef group = 0;
};

struct Otf2MetricMember
{
    OTF2_StringRef name = 0;
    OTF2_StringRef unit = 0;
    OTF2_MetricMode mode = 0;
    double scale = 1;  ///< base^exponent from the definition
};

struct Otf2Attribute
{
    OTF2_StringRef name = 0;
};

class Otf2Definitions
{
public:
    /// Sets this object's callbacks; register them with `this` as user data.
    static void setCallbacks(OTF2_GlobalDefReaderCallbacks* callbacks);

    /// The string of a reference; "" for an undefined one.
    std::string_view string(OTF2_StringRef ref) const;
    /// The location that `rank` of `communicator` names, seen from `self` (MPI_COMM_SELF
    /// names the caller); nullopt when the definitions do not say.
    std::optional<OTF2_LocationRef> rankLocation(
        OTF2_CommRef communicator, std::uint32_t rank, OTF2_LocationRef self) const;
    /// The metric members a Metric event's reference (a class or an instance) carries.
    const std::vector<OTF2_MetricMemberRef>* metricMembers(OTF2_MetricRef metric) const;

    Otf2Clock clock;
    std::uint64_t traceLengthTicks = 0;
    std::optional<std::uint64_t> realtimeOriginNs;  ///< epoch ns of the global offset
    bool hasClock = false;

    std::unordered_map<OTF2_StringRef, std::string> strings;
    std::unordered_map<OTF2_RegionRef, Otf2Region> regions;
    std::unordered_map<OTF2_SystemTreeNodeRef, Otf2SystemTreeNode> systemTree;
    std::unordered_map<OTF2_LocationGroupRef, Otf2LocationGroup> locationGroups;
    std::vector<Otf2Location> locations;  ///< in definition order
    std::unordered_map<OTF2_GroupRef, Otf2Group> groups;
    std::unordered_map<OTF2_CommRef, Otf2Comm> comms;
    std::unordered_map<OTF2_MetricMemberRef, Otf2MetricMember> metricMembersById;
    std::unordered_map<OTF2_MetricRef, std::vector<OTF2_MetricMemberRef>> metricClasses;
    std::unordered_map<OTF2_MetricRef, OTF2_MetricRef> metricInstances;  ///< -> its class
    std::unordered_map<OTF2_AttributeRef, Otf2Attribute> attributes;
    std::unordered_map<OTF2_ParameterRef, OTF2_StringRef> parameters;  ///< -> name
};

/// The role of an OTF2 region: MPI waits, barriers and probes are Sync, other MPI calls
/// (sends, receives, collectives, setup) Comm; OpenMP/thread barriers and task/thread
/// waits Sync; measurement artefacts (buffer flushes) Runtime; data-transfer regions
/// Transfer; anything else by name (model::classifyRole), usually Useful.
model::Role otf2RegionRole(std::string_view name, OTF2_RegionRole role, OTF2_Paradigm paradigm);

/// "MPI", "OpenMP", "CUDA", "user", "compiler", ...: the category of a region's intervals.
std::string_view otf2ParadigmName(OTF2_Paradigm paradigm);

/// "ALLREDUCE", "BCAST", ... for MpiCollectiveEnd records.
std::string_view otf2CollectiveName(OTF2_CollectiveOp op);

}  // namespace strata::storage
