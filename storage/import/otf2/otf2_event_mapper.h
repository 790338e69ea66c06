#pragma once
// Turns OTF2 event records into Strata events (the mapping is described in
// storage/otf2_importer.h): creates the tracks from the definitions, then receives
// libotf2's global event callbacks, keeping per location a stack of open regions, its
// counter tracks and its last time, and pairs MPI messages with MpiMessageMatcher.
//
// libotf2 is C: a callback never lets an exception out. The first exception (bad input
// such as a time out of range, or the sink's own errors) is kept, the callback interrupts
// the read, and the importer rethrows it (rethrowFailure()).

#include "storage/import/otf2/mpi_message_matcher.h"
#include "storage/import/otf2/otf2_definitions.h"
#include "storage/import/otf2/otf2_importer.h"

#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace strata::storage {

class TraceSink;

class Otf2EventMapper
{
public:
    /// `eventDir` is the archive's folder of per-location files (for error messages).
    Otf2EventMapper(TraceSink& sink, const Otf2Definitions& defs, Otf2ImportStats& stats,
        std::filesystem::path eventDir);

    /// Creates every track (system tree > location groups > locations) and writes meta.
    void createTracks();
    /// Sets the event callbacks; register them with `this` as user data.
    static void setCallbacks(OTF2_GlobalEvtReaderCallbacks* callbacks);
    /// Closes what is still open and counts unmatched messages.
    void finish();
    /// Rethrows the exception a callback kept, if any.
    void rethrowFailure() const;

    /// "DIR/traces/<location>.evt".
    std::string eventFile(OTF2_LocationRef location) const;

    // Record handlers, called by the C callbacks (they may throw).
    void enter(
        OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_AttributeList* attrs, OTF2_RegionRef region);
    void leave(OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_RegionRef region);
    void send(OTF2_LocationRef loc, OTF2_TimeStamp t, std::uint32_t receiver, OTF2_CommRef comm,
        std::uint32_t tag, std::uint64_t bytes);
    void receive(OTF2_LocationRef loc, OTF2_TimeStamp t, std::uint32_t sender, OTF2_CommRef comm,
        std::uint32_t tag, std::uint64_t bytes);
    void collectiveEnd(OTF2_LocationRef loc, OTF2_CollectiveOp op, OTF2_CommRef comm,
        std::uint32_t root, std::uint64_t sent, std::uint64_t received);
    void metric(OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_MetricRef metric, std::uint8_t count,
        const OTF2_Type* types, const OTF2_MetricValue* values);
    void program(OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_AttributeList* attrs, bool begin,
        std::int64_t detail);
    void parameter(OTF2_LocationRef loc, OTF2_ParameterRef parameter, const std::string& valueJson);

    /// Keeps the first failure; the callback then interrupts the read.
    void fail(std::exception_ptr failure);
    const Otf2Definitions& definitions() const { return m_defs; }

private:
    struct Frame
    {
        OTF2_RegionRef region = 0;
        model::TimeNs startNs = 0;
        std::string args;  ///< JSON members without braces: "k":v,"k2":v2
    };
    struct Location
    {
        model::TrackId track = model::kNoTrack;
        std::vector<Frame> stack;
        model::TimeNs lastNs = 0;
        std::unordered_map<OTF2_MetricMemberRef, model::TrackId> counters;
    };
    struct RegionInfo
    {
        model::StringId name = model::kEmptyString;
        model::StringId category = model::kEmptyString;
        model::Role role = model::Role::Useful;
    };

    Location& location(OTF2_LocationRef loc, model::TimeNs timeNs);
    model::TimeNs toNs(OTF2_LocationRef loc, OTF2_TimeStamp ticks) const;
    const RegionInfo& region(OTF2_RegionRef ref);
    /// Ends the innermost open region at `endNs`; `loc` and `t` name the Leave (none at the
    /// end of the trace) in the report.
    void close(Location& where, model::TimeNs endNs, OTF2_LocationRef loc,
        std::optional<OTF2_TimeStamp> t);
    /// Counts `n` events of the anomaly `count` (named `name` in the report), keeping where
    /// the first one is.
    void note(std::uint64_t& count, const char* name, OTF2_LocationRef loc,
        std::optional<OTF2_TimeStamp> t, std::uint64_t n = 1);
    /// The args of the innermost open region, or null (none open, or already long enough).
    static std::string* openArgs(Location& where);
    /// One side of a point-to-point message: args on the open region, then the matcher.
    void message(OTF2_LocationRef loc, OTF2_TimeStamp t, std::uint32_t peerRank, OTF2_CommRef comm,
        std::uint32_t tag, std::uint64_t bytes, bool isSend);
    void matched(const std::optional<MatchedMessage>& message, std::uint32_t tag);
    void appendAttributes(std::string& args, const OTF2_AttributeList* attrs) const;
    model::TrackId systemTreeTrack(OTF2_SystemTreeNodeRef ref, int depth);
    model::TrackId groupTrack(OTF2_LocationGroupRef ref);

    TraceSink& m_sink;
    const Otf2Definitions& m_defs;
    Otf2ImportStats& m_stats;
    std::filesystem::path m_eventDir;
    std::unordered_map<OTF2_LocationRef, Location> m_locations;
    std::unordered_map<OTF2_RegionRef, RegionInfo> m_regions;
    std::unordered_map<OTF2_SystemTreeNodeRef, model::TrackId> m_systemTreeTracks;
    std::unordered_map<OTF2_LocationGroupRef, model::TrackId> m_groupTracks;
    MpiMessageMatcher m_messages;
    model::StringId m_messageName = model::kEmptyString;
    std::exception_ptr m_failure;
};

}  // namespace strata::storage
