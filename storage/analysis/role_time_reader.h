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
// workers read before it with the same reader. Processes that each read some workers (MPI
// ranks reading their shards) stay exact by learning first: categoriesLearnedBy() makes
// the exact reads of a worker (its edges and the query's exact intervals, not the mixing)
// and returns what they teach, which depends on nothing read before; with every worker's
// learning known, seedCategories() starts a worker's read where one reader reading all the
// workers in order would have stood.

#include "model/role_rules.h"
#include "model/role_time.h"
#include "storage/store/store_reader.h"

#include <map>
#include <optional>
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

    /// What roleSlots(tracks, window, ...) would learn of names' categories, from the same
    /// exact reads (empty when no rule depends on a category); costs the query and the
    /// edges, not the mixing.
    CategoryKnowledge categoriesLearnedBy(
        std::span<const model::TrackId> tracks, model::TimeRange window);
    /// Replaces what this reader knows of categories, as if the workers `knowledge` came
    /// from, and only they, had been read before.
    void seedCategories(CategoryKnowledge knowledge) { m_categoryOf = std::move(knowledge); }

private:
    struct Resolved
    {
        std::optional<model::Role> role;  ///< nullopt: ignored
        int rule;  ///< -1: stored role
        bool known;  ///< false: a summary entry the rules could not classify
    };
    Resolved fromRule(int rule, model::Role stored) const;
    Resolved resolveExact(const model::Interval& e);
    Resolved resolveEntry(const Coverage& c) const;
    /// The slots' grid over `window`: bucket width w, first and last border inside.
    struct SlotGrid
    {
        model::TimeNs w, a, b;
    };
    SlotGrid slotGrid(model::TimeRange window) const;
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
    CategoryKnowledge m_categoryOf;  ///< seeded, plus what every call since read
    RoleAttribution m_attribution;
};

}  // namespace strata::storage
