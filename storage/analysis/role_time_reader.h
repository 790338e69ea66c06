#pragma once
// RoleTimeReader answers "how long did this worker spend in each role inside [t0, t1)"
// from the store's pyramid, in time independent of the number of events.
//
// How: the window is cut into slots on the grid of summary level k, the finest level
// with at most `maxSlots` buckets in the window (at least level 1):
//
//     t0   a                                   b    t1
//     |edge|  bucket | bucket | ... | bucket  |edge|
//      exact      summary cells + long events     exact
//
// The two partial edge buckets are read exactly (StoreReader::intervals: the events of
// one bucket). The whole buckets come from one StoreReader::query at level k: the cells
// (coverage per depth, name and role of the intervals shorter than a bucket) plus the
// exact intervals at least one bucket long, turned into coverage per bucket and layer
// (track, depth) and mixed by model::BucketRoleMixer, which bounds its own error: first
// the depths of each track (priority.within), then the tracks (priority.across). When
// the query decides that the window holds few enough events it returns them all
// (level 0); if every track of the worker came back that way, the whole window is
// swept exactly and the error is zero. Cost: O(slots x layers) plus the events of two
// buckets, whatever the trace's size.
//
// Roles: each interval counts with its stored role, or with the role of the first
// matching rule of a model::RoleRules (an `ignore` rule drops it). Summary cells keep
// names but not categories, and only their top names: a cell entry whose rule depends on
// the category takes the category its name had in the exact intervals read so far (long
// events, edges); when that is unknown or ambiguous, or for an "other names" entry that
// a rule might match, it keeps its stored role and its time is added to the error bound.
// attribution() records which rule (or the importer) and which names gave each role its time
// (coverage, before priorities resolve overlaps).
//
// That category knowledge is the one state that makes a worker's answer depend on the
// workers read before it with the same reader. A reader split across processes (an MPI rank
// reads only its shards' workers) stays exact through a record per worker: what its exact
// intervals taught (learned(), independent of any earlier read) and what its summary
// entries relied on (relied(): the name and what the reader knew of it then). Given the
// knowledge of every earlier worker, reliedOnlyOn() says whether the answer stands, and
// seedCategories() starts a reader where the single reader would have stood.

#include "model/role_rules.h"
#include "model/role_time.h"
#include "storage/store/store_reader.h"

#include <map>
#include <optional>
#include <set>
#include <span>
#include <vector>

namespace strata::storage {

/// Coverage by role and by the rule that gave it (-1: the importer's role), and by name.
struct RoleAttribution
{
    std::map<std::pair<model::Role, int>, model::TimeNs> byRule;
    std::map<std::pair<model::Role, model::StringId>, model::TimeNs> byName;
};

/// Category of each name seen in exact intervals; kMixedCategories once it had two.
using CategoryKnowledge = std::map<model::StringId, model::StringId>;
inline constexpr model::StringId kMixedCategories = 0xFFFFFFFFu;

/// Adds one (name, category) observation (or the knowledge of another reader: the join
/// is order-free: a name keeps its category while all agree, else kMixedCategories).
void learnCategory(CategoryKnowledge& knowledge, model::StringId name, model::StringId category);
void learnCategories(CategoryKnowledge& knowledge, const CategoryKnowledge& more);

/// What a summary entry's classification relied on: its name, and the category the
/// reader knew for it then (nullopt: none).
struct CategoryReliance
{
    model::StringId name;
    std::optional<model::StringId> known;
    auto operator<=>(const CategoryReliance&) const = default;
};

/// Role times of one slot of the window.
struct RoleSlot
{
    model::TimeRange range;
    model::RoleTimes times;
};

class RoleTimeReader
{
public:
    struct Options
    {
        int maxSlots = 4096;  ///< whole buckets per window, at most (cost vs. error)
        const model::RoleRules* rules = nullptr;  ///< nullptr: model::RoleRules::defaults()
    };

    RoleTimeReader(StoreReader& store, Options options);

    /// Role times of the worker made of `tracks` in `window` (see the class comment).
    model::RoleTimes roleTimes(std::span<const model::TrackId> tracks, model::TimeRange window,
        const model::WorkerPriority& priority);
    /// The same per slot, in time order; the slots tile the window.
    std::vector<RoleSlot> roleSlots(std::span<const model::TrackId> tracks, model::TimeRange window,
        const model::WorkerPriority& priority);
    /// Exact role times from every interval in the window (cost: those intervals).
    model::RoleTimes exactRoleTimes(std::span<const model::TrackId> tracks, model::TimeRange window,
        const model::WorkerPriority& priority);

    /// Summary level whose buckets the slots of `window` follow.
    int slotLevel(model::TimeRange window) const;
    /// Accumulated over every call so far.
    const RoleAttribution& attribution() const { return m_attribution; }
    /// Returns the attribution accumulated so far and starts a new one.
    RoleAttribution takeAttribution();

    /// Starts from `knowledge`, as if the workers it came from had been read first.
    void seedCategories(CategoryKnowledge knowledge) { m_categoryOf = std::move(knowledge); }
    /// Starts a new record: learned() and relied() cover the calls after this one.
    void startRecord();
    const CategoryKnowledge& learned() const { return m_learned; }
    const std::set<CategoryReliance>& relied() const { return m_relied; }
    /// Whether answers that relied on `relied` stay the same once `earlier` (the
    /// knowledge of workers this reader did not read) is known too.
    static bool reliedOnlyOn(
        const std::set<CategoryReliance>& relied, const CategoryKnowledge& earlier);

private:
    struct Resolved
    {
        std::optional<model::Role> role;  ///< nullopt: ignored
        int rule;  ///< -1: stored role
        bool known;  ///< false: a summary entry the rules could not classify
    };
    Resolved fromRule(int rule, model::Role stored) const;
    Resolved resolveExact(const model::Interval& e);
    Resolved resolveEntry(const Coverage& c);
    void attribute(const Resolved& r, model::StringId name, model::TimeNs ns);
    /// One track's exact intervals in `window`, clipped, with resolved roles.
    std::vector<model::RoleSpan> trackSpans(
        const std::vector<model::Interval>& intervals, model::TimeRange window);
    /// Exact role times of a worker from each track's intervals in `window`.
    model::RoleTimes exactFromIntervals(const std::vector<std::vector<model::Interval>>& perTrack,
        model::TimeRange window, const model::WorkerPriority& priority,
        std::vector<RoleSlot>* buckets, model::TimeNs bucketNs);

    StoreReader& m_store;
    Options m_options;
    model::RoleRules m_ruleSet;  ///< the rules, restricted to the store's categories
    CategoryKnowledge m_categoryOf;  ///< seeded, plus what every call so far read
    CategoryKnowledge m_learned;  ///< since startRecord()
    std::set<CategoryReliance> m_relied;  ///< since startRecord()
    RoleAttribution m_attribution;
};

}  // namespace strata::storage
