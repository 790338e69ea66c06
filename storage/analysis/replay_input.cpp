#include "storage/analysis/replay_input.h"

#include "model/workers.h"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace strata::storage {

using model::TimeNs;
using model::TrackId;

namespace {

std::string lowered(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool isCollective(const std::string& lowerName)
{
    return std::any_of(std::begin(kCollectiveCalls), std::end(kCollectiveCalls),
        [&](const char* c) { return lowerName == c; });
}

struct Call
{
    TimeNs startNs = 0, endNs = 0;
    bool collective = false;
    bool pointToPoint = false;
};

/// What a string names as an MPI call's category or name, worked out once per string id
/// (the store interns them, so a run of millions of calls has a handful of names).
class CallNames
{
public:
    enum Flags : std::uint8_t { kKnown = 1, kMpiCategory = 2, kCollective = 4, kPointToPoint = 8 };

    explicit CallNames(const model::StringTable& strings)
        : m_strings(strings)
        , m_flags(strings.size(), 0)
    {}

    std::uint8_t flags(model::StringId id)
    {
        if (id >= m_flags.size())
            return 0;
        std::uint8_t& f = m_flags[id];
        if (f == 0) {
            const std::string_view text = m_strings.text(id);
            const std::string name = lowered(text);
            f = kKnown | (text.starts_with("MPI") ? kMpiCategory : 0)
                | (isCollective(name) ? kCollective : 0)
                | (name.find("send") != std::string::npos || name.find("recv") != std::string::npos
                        ? kPointToPoint
                        : 0);
        }
        return f;
    }

private:
    const model::StringTable& m_strings;
    std::vector<std::uint8_t> m_flags;
};

/// The outermost MPI intervals of one track, by start.
std::vector<Call> mpiCalls(
    StoreReader& store, CallNames& names, TrackId track, model::TimeRange run)
{
    std::vector<Call> calls;
    TimeNs lastEnd = run.startNs;
    for (const model::Interval& i : store.intervals(track, run.startNs, run.endNs)) {
        if (!(names.flags(i.category) & CallNames::kMpiCategory) || i.startNs < lastEnd)
            continue;  // not MPI, or nested in (or overlapping) the previous call
        const std::uint8_t f = names.flags(i.name);
        calls.push_back({ i.startNs, std::min(i.endNs, run.endNs),
            (f & CallNames::kCollective) != 0, (f & CallNames::kPointToPoint) != 0 });
        lastEnd = calls.back().endNs;
    }
    return calls;
}

/// The first call of `calls` for which `before` is false (`before` is true on a prefix),
/// searched outwards from `hint` with doubling steps: flows come in time order, so the
/// answer is usually next to the previous one and a search costs O(1), not O(log n).
template<typename Pred>
std::size_t partitionFrom(const std::vector<Call>& calls, std::size_t hint, Pred before)
{
    const std::size_t n = calls.size();
    hint = std::min(hint, n);
    std::size_t lo = hint, hi = hint;  // the answer lies in [lo, hi]
    std::size_t step = 1;
    if (hint < n && before(calls[hint])) {
        lo = hi = hint + 1;
        while (hi < n && before(calls[hi])) {
            lo = hi + 1;
            hi = std::min(n, hi + step);
            step *= 2;
        }
    } else {
        while (lo > 0 && !before(calls[lo - 1])) {
            hi = lo - 1;
            lo = hi >= step ? hi - step : 0;
            step *= 2;
        }
    }
    const auto first = calls.begin() + static_cast<std::ptrdiff_t>(lo);
    return static_cast<std::size_t>(
        std::partition_point(first, calls.begin() + static_cast<std::ptrdiff_t>(hi), before)
        - calls.begin());
}

}  // namespace

struct MpiCallReader::Names : CallNames
{
    using CallNames::CallNames;
};

MpiCallReader::MpiCallReader(StoreReader& store)
    : m_store(store)
    , m_processes(model::workersAt(store.resources(), model::WorkerLevel::Process,
          [&](TrackId t) { return store.summary(t).intervals > 0; }))
    , m_processOf(store.resources().size(), -1)
    , m_names(std::make_unique<Names>(store.strings()))
{
    const model::ResourceTree& tree = store.resources();
    for (std::size_t p = 0; p < m_processes.size(); ++p)
        m_processOf[m_processes[p].resource] = static_cast<int>(p);
    for (TrackId t = 0; t < tree.size(); ++t) {  // parents come before their children
        const TrackId parent = tree.track(t).parent;
        if (m_processOf[t] < 0 && parent != model::kNoTrack && parent < t)
            m_processOf[t] = m_processOf[parent];
    }
}

MpiCallReader::~MpiCallReader() = default;

bool MpiCallReader::anyMpiCategory(const StoreReader& store)
{
    const auto& categories = store.categories();
    return std::any_of(categories.begin(), categories.end(),
        [&](const auto& c) { return store.strings().text(c.first).starts_with("MPI"); });
}

TimeNs MpiCallReader::outsideMpiNs(std::size_t process, model::TimeRange window)
{
    TimeNs inside = 0;
    for (TrackId t : m_processes[process].tracks) {
        const std::vector<Call> calls = mpiCalls(m_store, *m_names, t, window);
        for (const Call& c : calls)
            inside += c.endNs - std::max(c.startNs, window.startNs);
        if (!calls.empty())
            break;  // MPI's main thread
    }
    return window.durationNs() - inside;
}

ReplayProcessPart MpiCallReader::replayPart(std::size_t process, model::TimeRange run)
{
    const model::Worker& worker = m_processes[process];
    std::vector<Call> calls;
    for (TrackId t : worker.tracks) {
        calls = mpiCalls(m_store, *m_names, t, run);
        if (!calls.empty())
            break;  // MPI's main thread
    }
    ReplayProcessPart part;
    ReplayProcess& rp = part.process;
    rp.name = worker.name;
    TimeNs prevEnd = run.startNs;
    std::int32_t collectives = 0;
    for (const Call& c : calls) {
        rp.calls.push_back({ c.startNs - prevEnd, c.collective ? collectives++ : -1, 0, 0 });
        part.callEndsNs.push_back(c.endNs);
        part.pointToPoint = part.pointToPoint || c.pointToPoint;
        prevEnd = c.endNs;
    }
    rp.tailNs = std::max<TimeNs>(0, run.endNs - prevEnd);
    for (TrackId t : worker.tracks) {
        std::size_t sendHint = 0;
        for (const StoreReader::TileRef& ref : m_store.exactTiles(t, TileKind::Flows)) {
            const DecodedTile decoded = m_store.readTile(t, ref, TileKind::Flows);
            for (const model::Flow& f : std::get<FlowTile>(decoded).flows) {
                if (f.toTrack >= m_processOf.size())
                    continue;  // not a track of this store
                const int q = m_processOf[f.toTrack];
                part.anyMessage = true;
                if (q < 0 || q == static_cast<int>(process))
                    continue;
                // The sender's last call starting at or before the send.
                sendHint = partitionFrom(
                    calls, sendHint, [&](const Call& c) { return c.startNs <= f.fromNs; });
                if (sendHint > 0)
                    part.sent.push_back({ static_cast<std::uint32_t>(q), f.toNs,
                        static_cast<std::uint32_t>(sendHint - 1) });
            }
        }
    }
    return part;
}

std::vector<TimeNs> outsideMpiNs(StoreReader& store, model::TimeRange window)
{
    MpiCallReader reader(store);
    std::vector<TimeNs> out;
    for (std::size_t p = 0; p < reader.processes().size(); ++p)
        out.push_back(reader.outsideMpiNs(p, window));
    return out;
}

std::variant<ReplayInput, std::string> assembleReplayInput(std::vector<ReplayProcessPart> parts)
{
    const bool anyCall = std::any_of(
        parts.begin(), parts.end(), [](const auto& p) { return !p.process.calls.empty(); });
    if (!anyCall)
        return std::string("the trace has no MPI calls to replay");
    const bool anyPointToPoint =
        std::any_of(parts.begin(), parts.end(), [](const auto& p) { return p.pointToPoint; });
    const bool anyMessage =
        std::any_of(parts.begin(), parts.end(), [](const auto& p) { return p.anyMessage; });
    if (!anyMessage && anyPointToPoint)
        return std::string("the trace has MPI send/receive calls but no message records "
                           "(Paraver type-3 / OTF2 messages) to match them");

    // (receiver, its call, sender, its call), grouped by receiving call.
    std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>> edges;
    for (std::size_t p = 0; p < parts.size(); ++p) {
        for (const ReplayProcessPart::Sent& s : parts[p].sent) {
            // The receiver's first call ending at or after the arrival.
            const std::vector<TimeNs>& ends = parts[s.receiver].callEndsNs;
            const auto recv =
                static_cast<std::size_t>(std::partition_point(ends.begin(), ends.end(),
                                             [&](TimeNs end) { return end < s.arrivalNs; })
                    - ends.begin());
            if (recv == ends.size())
                continue;
            edges.emplace_back(s.receiver, static_cast<std::uint32_t>(recv),
                static_cast<std::uint32_t>(p), s.call);
        }
    }
    ReplayInput input;
    for (ReplayProcessPart& part : parts)
        input.processes.push_back(std::move(part.process));
    // Group by receiving call without sorting: count, prefix sums, place.
    for (const auto& [q, qc, p, pc] : edges)
        ++input.processes[q].calls[qc].messageCount;
    std::uint32_t next = 0;
    for (ReplayProcess& rp : input.processes) {
        for (ReplayCall& call : rp.calls) {
            call.firstMessage = next;
            next += call.messageCount;
            call.messageCount = 0;
        }
    }
    input.messages.resize(edges.size());
    for (const auto& [q, qc, p, pc] : edges) {
        ReplayCall& call = input.processes[q].calls[qc];
        input.messages[call.firstMessage + call.messageCount++] = { p, pc };
    }
    return input;
}

std::variant<ReplayInput, std::string> buildReplayInput(StoreReader& store, model::TimeRange run)
{
    // The store's categories say at once whether any MPI call is there to read.
    if (!MpiCallReader::anyMpiCategory(store))
        return std::string("the trace has no MPI calls to replay");
    MpiCallReader reader(store);
    std::vector<ReplayProcessPart> parts;
    for (std::size_t p = 0; p < reader.processes().size(); ++p)
        parts.push_back(reader.replayPart(p, run));
    return assembleReplayInput(std::move(parts));
}

}  // namespace strata::storage
