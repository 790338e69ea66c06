#include "storage/import/otf2/otf2_event_mapper.h"

#include "model/json_text.h"
#include "storage/store/input_error.h"
#include "storage/store/trace_sink.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace strata::storage {

namespace {

using model::ResourceKind;
using model::TimeNs;
using model::TrackId;

constexpr std::uint32_t kUndefinedRank = ~std::uint32_t(0);
constexpr std::int64_t kUndefinedExitStatus = INT64_MIN;
/// Depth is 16-bit and 0xFFFF means "compute it": deeper regions share the last depth.
constexpr std::size_t kMaxDepth = 0xFFFE;
/// A system tree deeper than this is a cycle or hostile: its deeper nodes hang at the root.
constexpr int kMaxSystemTreeDepth = 64;

/// Args of one interval stop growing past this (a region may hold many sends; the first
/// ones are what a details panel can show).
constexpr std::size_t kMaxArgsBytes = 4096;

/// Appends `"key":` after a comma when `args` already holds members.
void appendKey(std::string& args, std::string_view key)
{
    if (!args.empty())
        args.push_back(',');
    model::appendJsonString(args, key);
    args.push_back(':');
}

void appendMember(std::string& args, std::string_view key, std::uint64_t value)
{
    appendKey(args, key);
    args += std::to_string(value);
}

void appendMember(std::string& args, std::string_view key, std::string_view text)
{
    appendKey(args, key);
    model::appendJsonString(args, text);
}

std::string braced(const std::string& members)
{
    return members.empty() ? std::string() : "{" + members + "}";
}

/// A JSON number for a double ("null" for NaN/inf, which JSON cannot spell).
std::string jsonNumber(double value)
{
    if (!std::isfinite(value))
        return "null";
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}

}  // namespace

Otf2EventMapper::Otf2EventMapper(TraceSink& sink, const Otf2Definitions& defs,
    Otf2ImportStats& stats, std::filesystem::path eventDir)
    : m_sink(sink)
    , m_defs(defs)
    , m_stats(stats)
    , m_eventDir(std::move(eventDir))
{
    m_messageName = m_sink.intern("MPI message");
}

std::string Otf2EventMapper::eventFile(OTF2_LocationRef location) const
{
    return (m_eventDir / (std::to_string(location) + ".evt")).string();
}

void Otf2EventMapper::note(std::uint64_t& count, const char* name, OTF2_LocationRef loc,
    std::optional<OTF2_TimeStamp> t, std::uint64_t n)
{
    if (n == 0)
        return;
    if (count == 0)
        m_stats.firstAt[name] = eventFile(loc) + (t ? ", tick " + std::to_string(*t) : "");
    count += n;
}

void Otf2EventMapper::fail(std::exception_ptr failure)
{
    if (!m_failure)
        m_failure = std::move(failure);
}

void Otf2EventMapper::rethrowFailure() const
{
    if (m_failure)
        std::rethrow_exception(m_failure);
}

TrackId Otf2EventMapper::systemTreeTrack(OTF2_SystemTreeNodeRef ref, int depth)
{
    if (const auto it = m_systemTreeTracks.find(ref); it != m_systemTreeTracks.end())
        return it->second;
    const auto def = m_defs.systemTree.find(ref);
    if (def == m_defs.systemTree.end())
        return model::kNoTrack;
    const Otf2SystemTreeNode& node = def->second;
    const TrackId parent = node.hasParent && depth < kMaxSystemTreeDepth
        ? systemTreeTrack(node.parent, depth + 1)
        : model::kNoTrack;
    const std::string_view className = m_defs.string(node.className);
    const bool isNode = node.sharedMemory || className == "node";
    std::string name(m_defs.string(node.name));
    if (!isNode && !className.empty())
        name = std::string(className) + " " + name;  // "machine Linux"
    const TrackId track = m_sink.addTrack(parent, isNode ? ResourceKind::Node : ResourceKind::Group,
        std::move(name), std::int64_t(ref));
    m_systemTreeTracks[ref] = track;
    return track;
}

TrackId Otf2EventMapper::groupTrack(OTF2_LocationGroupRef ref)
{
    if (const auto it = m_groupTracks.find(ref); it != m_groupTracks.end())
        return it->second;
    const auto def = m_defs.locationGroups.find(ref);
    if (def == m_defs.locationGroups.end())
        return model::kNoTrack;
    const Otf2LocationGroup& group = def->second;
    const TrackId parent =
        group.hasParent ? systemTreeTrack(group.systemTreeParent, 0) : model::kNoTrack;
    const ResourceKind kind = group.type == OTF2_LOCATION_GROUP_TYPE_PROCESS ? ResourceKind::Process
        : group.type == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR                 ? ResourceKind::Gpu
                                                                             : ResourceKind::Group;
    const TrackId track =
        m_sink.addTrack(parent, kind, std::string(m_defs.string(group.name)), std::int64_t(ref));
    m_groupTracks[ref] = track;
    return track;
}

void Otf2EventMapper::createTracks()
{
    std::vector<const Otf2Location*> ordered;
    for (const Otf2Location& loc : m_defs.locations)
        ordered.push_back(&loc);
    std::stable_sort(
        ordered.begin(), ordered.end(), [](const Otf2Location* a, const Otf2Location* b) {
            return a->group != b->group ? a->group < b->group : a->id < b->id;
        });
    for (const Otf2Location* loc : ordered) {
        if (m_locations.count(loc->id))
            continue;  // defined twice: the first one wins
        const ResourceKind kind = loc->type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM
            ? ResourceKind::Stream
            : loc->type == OTF2_LOCATION_TYPE_METRIC ? ResourceKind::Group
                                                     : ResourceKind::Thread;
        m_locations[loc->id].track = m_sink.addTrack(groupTrack(loc->group), kind,
            std::string(m_defs.string(loc->name)), std::int64_t(loc->id));
    }
}

Otf2EventMapper::Location& Otf2EventMapper::location(OTF2_LocationRef loc, TimeNs timeNs)
{
    Location& where = m_locations[loc];
    if (where.track == model::kNoTrack)  // events of an undefined location: a root track
        where.track = m_sink.addTrack(model::kNoTrack, ResourceKind::Thread,
            "location " + std::to_string(loc), std::int64_t(loc));
    where.lastNs = std::max(where.lastNs, timeNs);
    return where;
}

TimeNs Otf2EventMapper::toNs(OTF2_LocationRef loc, OTF2_TimeStamp ticks) const
{
    if (const auto ns = m_defs.clock.toNs(ticks))
        return *ns;
    throw InputError(eventFile(loc) + ": event at tick " + std::to_string(ticks)
        + ": expected a time within 292 years of the global offset "
        + std::to_string(m_defs.clock.globalOffset()));
}

const Otf2EventMapper::RegionInfo& Otf2EventMapper::region(OTF2_RegionRef ref)
{
    const auto it = m_regions.find(ref);
    if (it != m_regions.end())
        return it->second;
    RegionInfo info;
    const auto def = m_defs.regions.find(ref);
    if (def == m_defs.regions.end()) {
        info.name = m_sink.intern("region " + std::to_string(ref));
    } else {
        const std::string_view name = m_defs.string(def->second.name);
        info.name = m_sink.intern(name);
        info.category = m_sink.intern(otf2ParadigmName(def->second.paradigm));
        info.role = otf2RegionRole(name, def->second.role, def->second.paradigm);
    }
    return m_regions.emplace(ref, info).first->second;
}

void Otf2EventMapper::appendAttributes(std::string& args, const OTF2_AttributeList* attrs) const
{
    const std::uint32_t count = attrs ? OTF2_AttributeList_GetNumberOfElements(attrs) : 0;
    for (std::uint32_t i = 0; i < count; ++i) {
        OTF2_AttributeRef ref;
        OTF2_Type type;
        OTF2_AttributeValue value;
        if (OTF2_AttributeList_GetAttributeByIndex(attrs, i, &ref, &type, &value) != OTF2_SUCCESS)
            continue;
        const auto def = m_defs.attributes.find(ref);
        appendKey(args,
            def != m_defs.attributes.end() ? m_defs.string(def->second.name)
                                           : "attribute " + std::to_string(ref));
        switch (type) {
        case OTF2_TYPE_INT8:
            args += std::to_string(value.int8);
            break;
        case OTF2_TYPE_INT16:
            args += std::to_string(value.int16);
            break;
        case OTF2_TYPE_INT32:
            args += std::to_string(value.int32);
            break;
        case OTF2_TYPE_INT64:
            args += std::to_string(value.int64);
            break;
        case OTF2_TYPE_UINT8:
            args += std::to_string(value.uint8);
            break;
        case OTF2_TYPE_UINT16:
            args += std::to_string(value.uint16);
            break;
        case OTF2_TYPE_FLOAT:
            args += jsonNumber(value.float32);
            break;
        case OTF2_TYPE_DOUBLE:
            args += jsonNumber(value.float64);
            break;
        case OTF2_TYPE_STRING:
            model::appendJsonString(args, m_defs.string(value.stringRef));
            break;
        case OTF2_TYPE_UINT64:
        case OTF2_TYPE_LOCATION:
            args += std::to_string(value.uint64);
            break;
        default:  // UINT32 and the other references (regions, groups, ...): 32-bit ids
            args += std::to_string(value.uint32);
            break;
        }
    }
}

void Otf2EventMapper::enter(
    OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_AttributeList* attrs, OTF2_RegionRef regionRef)
{
    ++m_stats.enters;
    const TimeNs ns = toNs(loc, t);
    Location& where = location(loc, ns);
    Frame frame { regionRef, ns, {} };
    appendAttributes(frame.args, attrs);
    where.stack.push_back(std::move(frame));
}

std::string* Otf2EventMapper::openArgs(Location& where)
{
    if (where.stack.empty() || where.stack.back().args.size() >= kMaxArgsBytes)
        return nullptr;
    return &where.stack.back().args;
}

void Otf2EventMapper::close(
    Location& where, TimeNs endNs, OTF2_LocationRef loc, std::optional<OTF2_TimeStamp> t)
{
    Frame& frame = where.stack.back();
    const RegionInfo& info = region(frame.region);
    model::Interval interval;
    interval.startNs = frame.startNs;
    interval.endNs = std::max(endNs, frame.startNs);
    if (endNs < frame.startNs)
        note(m_stats.backwardTimes, "backward_times", loc, t);
    interval.name = info.name;
    interval.category = info.category;
    interval.role = info.role;
    interval.depth = static_cast<model::Depth>(std::min(where.stack.size() - 1, kMaxDepth));
    m_sink.addInterval(where.track, interval, braced(frame.args));
    ++m_stats.intervals;
    where.stack.pop_back();
}

void Otf2EventMapper::leave(OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_RegionRef regionRef)
{
    ++m_stats.leaves;
    const TimeNs ns = toNs(loc, t);
    Location& where = location(loc, ns);
    const auto open = std::find_if(where.stack.rbegin(), where.stack.rend(),
        [&](const Frame& f) { return f.region == regionRef; });
    if (open == where.stack.rend()) {
        note(m_stats.unmatchedLeaves, "unmatched_leaves", loc, t);
        return;
    }
    // Regions opened inside the one that ends and never left end with it.
    const std::size_t keep = static_cast<std::size_t>(where.stack.rend() - open) - 1;
    note(m_stats.skippedLeaves, "skipped_leaves", loc, t, where.stack.size() - keep - 1);
    while (where.stack.size() > keep)
        close(where, ns, loc, t);
}

void Otf2EventMapper::send(OTF2_LocationRef loc, OTF2_TimeStamp t, std::uint32_t receiver,
    OTF2_CommRef comm, std::uint32_t tag, std::uint64_t bytes)
{
    ++m_stats.sends;
    message(loc, t, receiver, comm, tag, bytes, true);
}

void Otf2EventMapper::receive(OTF2_LocationRef loc, OTF2_TimeStamp t, std::uint32_t sender,
    OTF2_CommRef comm, std::uint32_t tag, std::uint64_t bytes)
{
    ++m_stats.receives;
    message(loc, t, sender, comm, tag, bytes, false);
}

void Otf2EventMapper::message(OTF2_LocationRef loc, OTF2_TimeStamp t, std::uint32_t peerRank,
    OTF2_CommRef comm, std::uint32_t tag, std::uint64_t bytes, bool isSend)
{
    const TimeNs ns = toNs(loc, t);
    Location& where = location(loc, ns);
    if (std::string* args = openArgs(where)) {
        appendMember(*args, isSend ? "receiver" : "sender", peerRank);
        appendMember(*args, "tag", tag);
        appendMember(*args, "bytes", bytes);
        if (const auto c = m_defs.comms.find(comm); c != m_defs.comms.end())
            appendMember(*args, "communicator", m_defs.string(c->second.name));
    }
    const auto peer = m_defs.rankLocation(comm, peerRank, loc);
    if (!peer) {
        note(m_stats.unresolvedPeers, "unresolved_peers", loc, t);
        return;
    }
    const MessageEnd end { where.track, ns, bytes };
    matched(isSend ? m_messages.send({ loc, *peer, comm, tag }, end)
                   : m_messages.receive({ *peer, loc, comm, tag }, end),
        tag);
}

void Otf2EventMapper::matched(const std::optional<MatchedMessage>& message, std::uint32_t tag)
{
    if (!message)
        return;
    model::Flow flow;
    flow.fromNs = message->send.timeNs;
    flow.toTrack = message->receive.track;
    flow.toNs = message->receive.timeNs;
    flow.name = m_messageName;
    flow.sizeBytes = message->send.sizeBytes;
    flow.tag = tag;
    m_sink.addFlow(message->send.track, flow);
    ++m_stats.flows;
}

void Otf2EventMapper::collectiveEnd(OTF2_LocationRef loc, OTF2_CollectiveOp op, OTF2_CommRef comm,
    std::uint32_t root, std::uint64_t sent, std::uint64_t received)
{
    ++m_stats.collectives;
    const auto it = m_locations.find(loc);
    std::string* open = it == m_locations.end() ? nullptr : openArgs(it->second);
    if (!open)
        return;
    std::string& args = *open;
    appendMember(args, "collective", otf2CollectiveName(op));
    if (const auto c = m_defs.comms.find(comm); c != m_defs.comms.end())
        appendMember(args, "communicator", m_defs.string(c->second.name));
    if (root != kUndefinedRank)
        appendMember(args, "root", root);
    appendMember(args, "bytes_sent", sent);
    appendMember(args, "bytes_received", received);
}

void Otf2EventMapper::metric(OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_MetricRef metricRef,
    std::uint8_t count, const OTF2_Type* types, const OTF2_MetricValue* values)
{
    ++m_stats.metricEvents;
    const TimeNs ns = toNs(loc, t);
    Location& where = location(loc, ns);
    const std::vector<OTF2_MetricMemberRef>* members = m_defs.metricMembers(metricRef);
    if (!members || !types || !values) {
        note(m_stats.unknownMetrics, "unknown_metrics", loc, t);
        return;
    }
    const std::size_t n = std::min<std::size_t>(count, members->size());
    for (std::size_t i = 0; i < n; ++i) {
        const OTF2_MetricMemberRef memberRef = (*members)[i];
        const auto member = m_defs.metricMembersById.find(memberRef);
        auto [counter, created] = where.counters.try_emplace(memberRef, model::kNoTrack);
        if (created) {
            const bool known = member != m_defs.metricMembersById.end();
            counter->second = m_sink.addTrack(where.track, ResourceKind::Counter,
                known ? std::string(m_defs.string(member->second.name))
                      : "metric " + std::to_string(memberRef),
                std::int64_t(memberRef),
                known ? std::string(m_defs.string(member->second.unit)) : std::string());
            ++m_stats.counterTracks;
        }
        double value = types[i] == OTF2_TYPE_INT64 ? double(values[i].signed_int)
            : types[i] == OTF2_TYPE_UINT64         ? double(values[i].unsigned_int)
                                                   : values[i].floating_point;
        if (member != m_defs.metricMembersById.end())
            value *= member->second.scale;
        m_sink.addCounterSample(counter->second, model::CounterSample { ns, value });
        ++m_stats.counterSamples;
    }
}

void Otf2EventMapper::program(OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_AttributeList* attrs,
    bool begin, std::int64_t detail)
{
    ++m_stats.programEvents;
    const TimeNs ns = toNs(loc, t);
    Location& where = location(loc, ns);
    std::string args;
    if (begin)
        appendMember(args, "program", m_defs.string(static_cast<OTF2_StringRef>(detail)));
    else if (detail != kUndefinedExitStatus) {
        appendKey(args, "exit_status");
        args += std::to_string(detail);
    }
    appendAttributes(args, attrs);
    const model::Instant instant { ns, m_sink.intern(begin ? "program begin" : "program end"),
        m_sink.intern("program") };
    m_sink.addInstant(where.track, instant, braced(args));
    ++m_stats.instants;
}

void Otf2EventMapper::parameter(
    OTF2_LocationRef loc, OTF2_ParameterRef parameterRef, const std::string& valueJson)
{
    const auto it = m_locations.find(loc);
    std::string* open = it == m_locations.end() ? nullptr : openArgs(it->second);
    if (!open)
        return;
    const auto def = m_defs.parameters.find(parameterRef);
    std::string& args = *open;
    appendKey(args,
        def != m_defs.parameters.end() ? std::string(m_defs.string(def->second))
                                       : "parameter " + std::to_string(parameterRef));
    args += valueJson;
}

void Otf2EventMapper::finish()
{
    std::vector<OTF2_LocationRef> refs;  // in order, so that the report names the first
    for (const auto& [ref, where] : m_locations)
        refs.push_back(ref);
    std::sort(refs.begin(), refs.end());
    for (const OTF2_LocationRef ref : refs) {
        Location& where = m_locations.at(ref);
        note(m_stats.unclosedEnters, "unclosed_enters", ref, std::nullopt, where.stack.size());
        while (!where.stack.empty())
            close(where, where.lastNs, ref, std::nullopt);
    }
    m_stats.unmatchedSends = m_messages.pendingSends();
    m_stats.unmatchedReceives = m_messages.pendingReceives();
}

}  // namespace strata::storage
