#include "storage/analysis/name_profile.h"

#include "storage/analysis/partial_bytes_p.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>

namespace strata::storage {

using model::TimeNs;
using model::TimeRange;

namespace {

struct Accumulator
{
    model::Role role = model::Role::Useful;
    TimeNs totalNs = 0;
    std::int64_t count = 0;
    double sumSquares = 0;
};

using NameKey = std::pair<model::StringId, model::Role>;

void addClipped(std::map<NameKey, Accumulator>& acc, const model::Interval& e, TimeRange range)
{
    const TimeNs ns = std::min(e.endNs, range.endNs) - std::max(e.startNs, range.startNs);
    if (ns < 0 || (ns == 0 && e.durationNs() > 0))
        return;
    Accumulator& a = acc[{ e.name, e.role }];
    a.role = e.role;
    a.totalNs += ns;
    a.count += 1;
    a.sumSquares += static_cast<double>(ns) * static_cast<double>(ns);
}

/// Time per name of one track from the pyramid (no counts).
void summaryTimes(StoreReader& store, model::TrackId track, TimeRange window, int maxSlots,
    std::map<NameKey, Accumulator>& acc)
{
    const model::LodGrid& grid = store.grid();
    const int level =
        std::max(1, grid.levelFor(static_cast<double>(window.durationNs()) / maxSlots));
    const TimeNs w = grid.bucketNs(level);
    const TimeNs a = std::min(window.endNs, -model::floorDiv(-window.startNs, w) * w);
    const TimeNs b = std::max(a, model::floorDiv(window.endNs, w) * w);
    auto exact = [&](TimeRange range) {
        if (range.empty())
            return;
        for (const model::Interval& e : store.intervals(track, range.startNs, range.endNs))
            addClipped(acc, e, range);
    };
    exact({ window.startNs, a });
    exact({ b, window.endNs });
    if (a >= b)
        return;
    ViewportQuery q { { track }, a, b, static_cast<int>((b - a) / w) };
    const TrackSlice slice = std::move(store.query(q).front());
    for (const model::Interval& e : slice.intervals)
        addClipped(acc, e, { a, b });
    for (const IntervalCell& cell : slice.cells) {
        for (std::uint32_t i = 0; i < cell.entryCount; ++i) {
            const Coverage& c = slice.entries[cell.firstEntry + i];
            Accumulator& x = acc[{ c.name, c.role }];
            x.role = c.role;
            x.totalNs += c.coverageNs;
        }
    }
}

}  // namespace

NameProfile profileNames(
    StoreReader& store, std::span<const model::TrackId> tracks, TimeRange window, int maxSlots)
{
    NameProfile out;
    out.window = window;
    if (window.empty())
        return out;
    ViewportQuery q { { tracks.begin(), tracks.end() }, window.startNs, window.endNs, maxSlots };
    const std::vector<TrackSlice> slices = store.query(q);
    for (const TrackSlice& slice : slices) {
        std::map<NameKey, Accumulator> acc;
        const bool exact = slice.intervalLevel == 0;
        if (exact) {
            out.exactTracks.push_back(slice.track);
            for (const model::Interval& e : slice.intervals)
                addClipped(acc, e, window);
        } else {
            summaryTimes(store, slice.track, window, maxSlots, acc);
        }
        const std::size_t first = out.rows.size();
        for (const auto& [key, a] : acc) {
            NameStat row;
            row.track = slice.track;
            row.name = key.first;
            row.role = a.role;
            row.totalNs = a.totalNs;
            row.windowShare =
                static_cast<double>(a.totalNs) / static_cast<double>(window.durationNs());
            if (exact && a.count > 0) {
                const double n = static_cast<double>(a.count);
                const double mean = static_cast<double>(a.totalNs) / n;
                const double variance = std::max(0.0, a.sumSquares / n - mean * mean);
                row.count = a.count;
                row.meanNs = mean;
                row.stddevNs = std::sqrt(variance);
                row.coefficientOfVariation = mean > 0 ? std::sqrt(variance) / mean : 0.0;
            }
            out.rows.push_back(row);
        }
        std::sort(out.rows.begin() + static_cast<std::ptrdiff_t>(first), out.rows.end(),
            [](const NameStat& x, const NameStat& y) {
                return x.totalNs != y.totalNs ? x.totalNs > y.totalNs : x.name < y.name;
            });
    }
    return out;
}

namespace {

constexpr std::string_view kProfileMagic = "SNP1";

void optionalF64(ByteWriter& out, const std::optional<double>& v)
{
    out.u8(v ? 1 : 0);
    if (v)
        out.f64(*v);
}

std::optional<double> optionalF64(ByteReader& in)
{
    if (in.u8() == 0)
        return std::nullopt;
    return in.f64();
}

}  // namespace

//   "SNP1" window start, end; rows n, per row: track, name, role u8, total, count + 1 (0:
//   none), mean, stddev, cv (u8 present, f64), window share f64; exact tracks n, each
std::string NameProfile::toBytes() const
{
    ByteWriter out;
    out.bytes().append(kProfileMagic);
    out.svarint(window.startNs);
    out.svarint(window.endNs);
    out.varint(rows.size());
    for (const NameStat& s : rows) {
        out.varint(s.track);
        out.varint(s.name);
        out.u8(static_cast<std::uint8_t>(s.role));
        out.svarint(s.totalNs);
        out.varint(s.count ? static_cast<std::uint64_t>(*s.count) + 1 : 0);
        optionalF64(out, s.meanNs);
        optionalF64(out, s.stddevNs);
        optionalF64(out, s.coefficientOfVariation);
        out.f64(s.windowShare);
    }
    out.varint(exactTracks.size());
    for (model::TrackId t : exactTracks)
        out.varint(t);
    return std::move(out.bytes());
}

NameProfile NameProfile::fromBytes(std::string_view bytes)
{
    ByteReader in(bytes);
    detail::expectMagic(in, kProfileMagic, "name profile");
    NameProfile p;
    p.window.startNs = in.svarint();
    p.window.endNs = in.svarint();
    for (std::uint64_t n = detail::checkedCount(in, 16, "name profile"); n > 0; --n) {
        NameStat& s = p.rows.emplace_back();
        s.track = static_cast<model::TrackId>(in.varint());
        s.name = static_cast<model::StringId>(in.varint());
        const std::uint8_t role = in.u8();
        if (role >= model::kRoleCount)
            throw CorruptTile("name profile: a role out of range");
        s.role = static_cast<model::Role>(role);
        s.totalNs = in.svarint();
        if (const std::uint64_t count = in.varint())
            s.count = static_cast<std::int64_t>(count - 1);
        s.meanNs = optionalF64(in);
        s.stddevNs = optionalF64(in);
        s.coefficientOfVariation = optionalF64(in);
        s.windowShare = in.f64();
    }
    for (std::uint64_t n = detail::checkedCount(in, 1, "name profile"); n > 0; --n)
        p.exactTracks.push_back(static_cast<model::TrackId>(in.varint()));
    if (!in.atEnd())
        throw CorruptTile("name profile: bytes after its end");
    return p;
}

NameProfile NameProfile::join(
    std::vector<NameProfile> parts, std::span<const model::TrackId> tracks)
{
    NameProfile out;
    std::map<model::TrackId, std::vector<NameStat>> rowsOf;
    std::set<model::TrackId> exact;
    for (NameProfile& part : parts) {
        out.window = part.window;
        for (NameStat& s : part.rows)
            rowsOf[s.track].push_back(std::move(s));
        exact.insert(part.exactTracks.begin(), part.exactTracks.end());
    }
    for (model::TrackId t : tracks) {
        if (const auto it = rowsOf.find(t); it != rowsOf.end()) {
            std::move(it->second.begin(), it->second.end(), std::back_inserter(out.rows));
            rowsOf.erase(it);
        }
        if (exact.count(t))
            out.exactTracks.push_back(t);
    }
    return out;
}

}  // namespace strata::storage
