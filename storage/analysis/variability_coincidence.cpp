// Coincidence: what is true during the slow instances of a name and not during its fast
// ones. Slow: the longest tenth of the instances (at least one); fast: the shorter half.
// Names with fewer than kMinInstances instances are skipped (no tenth to speak of).
//
// An instance's device is its GPU when it runs on one, else its node (the processes'
// parent). Two GPU resources with the same name up to " (" under the same parent are one
// device (Kineto writes "GPU 0 (rank 1)" per rank: ranks sharing a GPU share it). Its
// scope is the device for a GPU instance and its own process for a host one (a host range
// competes with its process's threads, not with every rank's). For each instance:
//   memcpy:        it overlaps a transfer (memcpy/memset) in its scope;
//   comm:          it overlaps a communication interval (NCCL kernel, MPI call) there;
//   other_process: it overlaps activity of another process on its device (another rank's
//                  kernels on a shared GPU, another rank's threads on a node);
//   counter:NAME:  the time-weighted mean of each counter of its device (NVML clock,
//                  power, utilization) over the instance.
// `slow` and `fast` are the share of instances that overlap (or the mean of the counter
// means); a `with` is reported only where one of them is non-zero.

#include "storage/analysis/variability_p.h"

#include <algorithm>
#include <array>

namespace strata::storage::detail {

namespace {

using model::ResourceKind;
using model::TimeNs;
using model::TrackId;

constexpr std::size_t kMinInstances = 10;

using Ranges = std::vector<std::pair<TimeNs, TimeNs>>;

struct Device
{
    std::map<TrackId, Ranges> transfer, comm;  ///< by scope (kNoTrack: the whole device)
    std::map<TrackId, Ranges> byOwner;  ///< activity per owning GPU resource or process
    std::vector<std::size_t> counters;  ///< indexes into the counter list
};

/// A counter of the partial: its samples and its "counter:NAME" key.
struct CounterRef
{
    const std::vector<model::CounterSample>* samples;
    std::string with;
};

/// Sorts and merges ranges into disjoint ones, in place, so that a binary search finds
/// the only candidate.
void mergeRanges(Ranges& r)
{
    std::sort(r.begin(), r.end());
    std::size_t kept = 0;
    for (std::size_t i = 0; i < r.size(); ++i) {
        if (kept > 0 && r[i].first <= r[kept - 1].second)
            r[kept - 1].second = std::max(r[kept - 1].second, r[i].second);
        else
            r[kept++] = r[i];
    }
    r.resize(kept);
}

bool overlapsMerged(const Ranges& merged, TimeNs a, TimeNs b)
{
    auto it = std::upper_bound(merged.begin(), merged.end(), std::make_pair(b, TimeNs { 0 }),
        [](const auto& x, const auto& y) { return x.first < y.first; });
    if (it == merged.begin())
        return false;
    --it;
    // Zero-length instances count when they lie inside a range.
    return a == b ? (it->first <= a && a < it->second) : (it->first < b && it->second > a);
}

double counterMean(const std::vector<model::CounterSample>& samples, TimeNs a, TimeNs b, bool& ok)
{
    auto it = std::upper_bound(samples.begin(), samples.end(), a,
        [](TimeNs t, const model::CounterSample& s) { return t < s.timeNs; });
    if (it == samples.begin()) {
        ok = false;  // no value holds at the instance's start
        return 0;
    }
    --it;
    if (a == b) {
        ok = true;
        return it->value;
    }
    double area = 0;
    TimeNs at = a;
    for (; it != samples.end() && it->timeNs < b; ++it) {
        const TimeNs next = (it + 1 != samples.end()) ? std::min((it + 1)->timeNs, b) : b;
        area += it->value * static_cast<double>(next - at);
        at = next;
    }
    ok = true;
    return area / static_cast<double>(b - a);
}

struct DeviceKey
{
    TrackId parent = model::kNoTrack;
    std::string name;
    auto operator<=>(const DeviceKey&) const = default;
};

struct Placement
{
    DeviceKey device;
    TrackId owner = model::kNoTrack;  ///< the GPU resource or the process
    TrackId scope = model::kNoTrack;  ///< kNoTrack (the device) on a GPU, else the owner
};

Placement place(const model::ResourceTree& tree, TrackId track)
{
    if (TrackId gpu = ancestorOfKind(tree, track, ResourceKind::Gpu); gpu != model::kNoTrack) {
        const std::string& name = tree.track(gpu).name;
        return { { tree.track(gpu).parent, name.substr(0, name.find(" (")) }, gpu,
            model::kNoTrack };
    }
    const TrackId process = ancestorOfKind(tree, track, ResourceKind::Process);
    if (process == model::kNoTrack)
        return { { track, {} }, track, track };
    return { { tree.track(process).parent, "host" }, process, process };
}

}  // namespace

std::vector<Coincidence> findCoincidences(const VariabilityPartial& partial,
    const model::ResourceTree& tree, const std::vector<NameVariability>& names)
{
    std::map<DeviceKey, Device> devices;
    std::vector<std::optional<Placement>> placed(tree.size());
    const auto placement = [&](TrackId t) -> const Placement& {
        if (!placed[t])
            placed[t] = place(tree, t);
        return *placed[t];
    };
    // Transfers and comm are few; activity is every interval, so it is gathered one owner
    // at a time and merged at once (nested and back-to-back intervals collapse), and only
    // on devices that more than one owner shares.
    std::map<TrackId, std::vector<const TrackInstances*>> listsOf;  // owner -> its lists
    for (const auto& [name, tracks] : partial.names) {
        for (const auto& [track, list] : tracks) {
            const Placement& p = placement(track);
            Device& d = devices[p.device];
            d.byOwner.try_emplace(p.owner);
            listsOf[p.owner].push_back(&list);
            Ranges* sink = list.role == model::Role::Transfer ? &d.transfer[p.scope]
                : list.role == model::Role::Comm              ? &d.comm[p.scope]
                                                              : nullptr;
            if (!sink)
                continue;
            for (const VariabilityInstance& i : list.instances)
                sink->emplace_back(i.startNs, i.startNs + i.durationNs);
        }
    }
    std::vector<CounterRef> counters;
    for (const auto& [track, samples] : partial.counters) {
        devices[placement(track).device].counters.push_back(counters.size());
        counters.push_back({ &samples, "counter:" + tree.track(track).name });
    }
    for (auto& [key, d] : devices) {
        for (auto& [scope, r] : d.transfer)
            mergeRanges(r);
        for (auto& [scope, r] : d.comm)
            mergeRanges(r);
        if (d.byOwner.size() < 2) {
            d.byOwner.clear();
            continue;
        }
        for (auto& [owner, r] : d.byOwner) {
            for (const TrackInstances* list : listsOf[owner]) {
                if (list->role == model::Role::Idle)
                    continue;
                for (const VariabilityInstance& i : list->instances)
                    r.emplace_back(i.startNs, i.startNs + i.durationNs);
            }
            mergeRanges(r);
            r.shrink_to_fit();
        }
    }

    // The device of each track, found once (the visits below make millions of lookups).
    std::vector<const Device*> deviceOf(tree.size(), nullptr);
    const auto deviceOfTrack = [&](TrackId t) -> const Device& {
        if (!deviceOf[t])
            deviceOf[t] = &devices.at(placement(t).device);
        return *deviceOf[t];
    };

    std::vector<Coincidence> out;
    for (const NameVariability& nv : names) {
        struct Item
        {
            TimeNs durationNs, startNs;
            TrackId track;
        };
        std::vector<Item> items;
        for (const auto& [track, list] : partial.names.find(nv.name)->second) {
            if ((ancestorOfKind(tree, track, ResourceKind::Gpu) != model::kNoTrack) != nv.device)
                continue;
            for (const VariabilityInstance& i : list.instances)
                items.push_back({ i.durationNs, i.startNs, track });
        }
        if (items.size() < kMinInstances)
            continue;
        std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
            if (a.durationNs != b.durationNs)
                return a.durationNs < b.durationNs;
            return a.startNs != b.startNs ? a.startNs < b.startNs : a.track < b.track;
        });
        const std::size_t slowCount = (items.size() + 9) / 10;
        const std::size_t fastCount = items.size() / 2;
        // with -> (slow sum, fast sum, slow n, fast n); a key with nothing added reads 0
        // and is left out below, so the fixed keys and each counter's are looked up once.
        using Sums = std::array<double, 4>;
        std::map<std::string, Sums> acc;
        Sums& memcpySums = acc["memcpy"];
        Sums& commSums = acc["comm"];
        Sums& otherSums = acc["other_process"];
        std::vector<Sums*> counterSums(counters.size(), nullptr);
        const auto add = [](Sums& a, bool slow, double value) {
            a[slow ? 0 : 1] += value;
            a[slow ? 2 : 3] += 1;
        };
        const auto visit = [&](const Item& item, bool slow) {
            const Placement& p = placement(item.track);
            const Device& d = deviceOfTrack(item.track);
            const TimeNs a = item.startNs, b = item.startNs + item.durationNs;
            const auto within = [&](const std::map<TrackId, Ranges>& byScope) {
                const auto it = byScope.find(p.scope);
                return it != byScope.end() && overlapsMerged(it->second, a, b) ? 1 : 0;
            };
            // A transfer overlaps transfers, a collective collectives: itself, at least.
            if (nv.role != model::Role::Transfer)
                add(memcpySums, slow, within(d.transfer));
            if (nv.role != model::Role::Comm)
                add(commSums, slow, within(d.comm));
            bool other = false;
            for (const auto& [owner, r] : d.byOwner)
                other = other || (owner != p.owner && overlapsMerged(r, a, b));
            add(otherSums, slow, other ? 1 : 0);
            for (const std::size_t c : d.counters) {
                bool ok = false;
                const double mean = counterMean(*counters[c].samples, a, b, ok);
                if (!ok)
                    continue;
                if (!counterSums[c])
                    counterSums[c] = &acc[counters[c].with];
                add(*counterSums[c], slow, mean);
            }
        };
        for (std::size_t i = items.size() - slowCount; i < items.size(); ++i)
            visit(items[i], true);
        for (std::size_t i = 0; i < fastCount; ++i)
            visit(items[i], false);
        for (const auto& [with, a] : acc) {
            const double slow = a[2] > 0 ? a[0] / a[2] : 0;
            const double fast = a[3] > 0 ? a[1] / a[3] : 0;
            if (slow != 0 || fast != 0)
                out.push_back({ nv.name, nv.device, with, slow, fast });
        }
    }
    return out;
}

}  // namespace strata::storage::detail
