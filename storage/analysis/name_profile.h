#pragma once
// The analyzer's table (Paraver's 2D profile): for a window, per track and per interval
// name, the time spent in that name, and when the window is small enough to read its
// events, their count, mean, standard deviation and coefficient of variation.
//
// Statistics are over the intervals' durations clipped to the window (a 10 ms kernel of
// which 2 ms lie inside counts 2 ms), and "% of window" is total / window length (nested
// names can sum past 100 % on one track). A track whose window holds at most `maxSlots`
// events is read exactly; otherwise its time per name comes from the pyramid (summary
// cells at level k with partial edge buckets read exactly, like RoleTimeReader), where
// only the top names of each cell are kept: the time of the others is reported under
// "(other names)" of its role, and count/mean/stddev are not available (the cells count
// intervals per bucket, not per name).

#include "storage/store/store_reader.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage {

struct NameStat
{
    model::TrackId track = model::kNoTrack;
    model::StringId name = model::kEmptyString;  ///< kOtherNames: names the cells dropped
    model::Role role = model::Role::Useful;
    model::TimeNs totalNs = 0;
    std::optional<std::int64_t> count;  ///< set only when the track was read exactly
    std::optional<double> meanNs, stddevNs, coefficientOfVariation;
    double windowShare = 0;  ///< totalNs / window length
};

struct NameProfile
{
    model::TimeRange window;
    std::vector<NameStat> rows;  ///< by track (as asked), then decreasing total time
    std::vector<model::TrackId> exactTracks;  ///< the tracks read from exact events

    /// The profile as bytes, for the process that merges (an MPI rank): each track's rows
    /// are computed alone, so profiles of disjoint track sets join exactly.
    std::string toBytes() const;
    /// Throws CorruptTile for bytes that are not a profile.
    static NameProfile fromBytes(std::string_view bytes);
    /// The profiles of parts of `tracks`, joined in the order of `tracks`: what one
    /// profileNames over all of them returns.
    static NameProfile join(std::vector<NameProfile> parts, std::span<const model::TrackId> tracks);
};

/// The profile of `tracks` in `window` (see the file comment).
NameProfile profileNames(StoreReader& store, std::span<const model::TrackId> tracks,
    model::TimeRange window, int maxSlots = 4096);

}  // namespace strata::storage
