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

/// The outermost MPI intervals of one track, by start.
std::vector<Call> mpiCalls(StoreReader& store, TrackId track, model::TimeRange run)
{
    const model::StringTable& strings = store.strings();
    std::vector<Call> calls;
    TimeNs lastEnd = run.startNs;
    for (const model::Interval& i : store.intervals(track, run.startNs, run.endNs)) {
        if (!strings.text(i.category).starts_with("MPI") || i.startNs < lastEnd)
            continue;  // not MPI, or nested in (or overlapping) the previous call
        const std::string name = lowered(strings.text(i.name));
        calls.push_back({ i.startNs, std::min(i.endNs, run.endNs), isCollective(name),
            name.find("send") != std::string::npos || name.find("recv") != std::string::npos });
        lastEnd = calls.back().endNs;
    }
    return calls;
}

}  // namespace

std::variant<ReplayInput, std::string> buildReplayInput(StoreReader& store, model::TimeRange run)
{
    // The store's categories say at once whether any MPI call is there to read.
    const auto& categories = store.categories();
    if (std::none_of(categories.begin(), categories.end(),
            [&](const auto& c) { return store.strings().text(c.first).starts_with("MPI"); }))
        return std::string("the trace has no MPI calls to replay");
    const model::ResourceTree& tree = store.resources();
    const auto processes = model::workersAt(tree, model::WorkerLevel::Process,
        [&](TrackId t) { return store.summary(t).intervals > 0; });
    // Process index of every track under a process (flows end on threads).
    std::vector<int> processOf(tree.size(), -1);
    for (std::size_t p = 0; p < processes.size(); ++p)
        processOf[processes[p].resource] = static_cast<int>(p);
    for (TrackId t = 0; t < tree.size(); ++t) {  // parents come before their children
        const TrackId parent = tree.track(t).parent;
        if (processOf[t] < 0 && parent != model::kNoTrack && parent < t)
            processOf[t] = processOf[parent];
    }

    ReplayInput input;
    std::vector<std::vector<Call>> calls(processes.size());
    bool anyCall = false, anyPointToPoint = false;
    for (std::size_t p = 0; p < processes.size(); ++p) {
        for (TrackId t : processes[p].tracks) {
            calls[p] = mpiCalls(store, t, run);
            if (!calls[p].empty())
                break;  // MPI's main thread
        }
        anyCall = anyCall || !calls[p].empty();
        for (const Call& c : calls[p])
            anyPointToPoint = anyPointToPoint || c.pointToPoint;
        ReplayProcess rp;
        rp.name = processes[p].name;
        TimeNs prevEnd = run.startNs;
        std::int32_t collectives = 0;
        for (const Call& c : calls[p]) {
            rp.calls.push_back({ c.startNs - prevEnd, c.collective ? collectives++ : -1, 0, 0 });
            prevEnd = c.endNs;
        }
        rp.tailNs = std::max<TimeNs>(0, run.endNs - prevEnd);
        input.processes.push_back(std::move(rp));
    }
    if (!anyCall)
        return std::string("the trace has no MPI calls to replay");

    // (receiver, its call, sender, its call), grouped by receiving call.
    std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>> edges;
    bool anyMessage = false;
    for (std::size_t p = 0; p < processes.size(); ++p) {
        for (TrackId t : processes[p].tracks) {
            for (const StoreReader::TileRef& ref : store.exactTiles(t, TileKind::Flows)) {
                const DecodedTile decoded = store.readTile(ref, TileKind::Flows);
                for (const model::Flow& f : std::get<FlowTile>(decoded).flows) {
                    if (f.toTrack >= processOf.size())
                        continue;  // not a track of this store
                    const int q = processOf[f.toTrack];
                    anyMessage = true;
                    if (q < 0 || q == static_cast<int>(p))
                        continue;
                    const auto& sc = calls[p];
                    const auto& rc = calls[static_cast<std::size_t>(q)];
                    auto send = std::upper_bound(sc.begin(), sc.end(), f.fromNs,
                        [](TimeNs t0, const Call& c) { return t0 < c.startNs; });
                    auto recv = std::lower_bound(rc.begin(), rc.end(), f.toNs,
                        [](const Call& c, TimeNs t1) { return c.endNs < t1; });
                    if (send == sc.begin() || recv == rc.end())
                        continue;
                    edges.emplace_back(q, static_cast<std::uint32_t>(recv - rc.begin()),
                        static_cast<std::uint32_t>(p),
                        static_cast<std::uint32_t>(send - sc.begin() - 1));
                }
            }
        }
    }
    if (!anyMessage && anyPointToPoint)
        return std::string("the trace has MPI send/receive calls but no message records "
                           "(Paraver type-3 / OTF2 messages) to match them");
    std::sort(edges.begin(), edges.end());
    for (const auto& [q, qc, p, pc] : edges) {
        ReplayCall& call = input.processes[q].calls[qc];
        if (call.messageCount == 0)
            call.firstMessage = static_cast<std::uint32_t>(input.messages.size());
        ++call.messageCount;
        input.messages.push_back({ p, pc });
    }
    return input;
}

}  // namespace strata::storage
