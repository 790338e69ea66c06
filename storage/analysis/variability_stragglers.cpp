// Stragglers: per step, the worker the others wait for.
//
// Steps are the `ProfilerStep#N` ranges of each worker (torch.profiler), matched by name
// across workers; without them, the collectives: step k of a worker runs from the end of
// its (k-1)-th outermost comm interval to the end of its k-th. In a step a worker either
// works or waits in a collective: work = step length - (union of its comm intervals in
// the step). The worker the others wait for is the one that works longest; it straggles
// when its work exceeds the median of the other workers' work by at least
// kStragglerThreshold of the step's median length (below that, the ranks are even: a few
// per cent is what launch jitter and clock alignment give on even DDP ranks). A step in
// which no worker spends time in a collective has no straggler: nobody waits (the GPU
// side of a gloo run, whose collectives run on the host).
//
// Causes: for every interval name that is neither a step nor a collective, the straggler's
// time in that name inside its step minus the median of the other workers' time in it
// inside theirs, summed over the steps it straggled in; positive sums, largest first.
// Only tracks native to the worker count (at the process level a GPU's own step ranges
// are not the rank's).

#include "storage/analysis/variability_p.h"

#include <algorithm>
#include <regex>
#include <set>

namespace strata::storage::detail {

namespace {

using model::TimeNs;
using model::TrackId;

struct Step
{
    std::string name;
    TimeNs startNs = 0, endNs = 0;
};

bool isStepName(std::string_view name)
{
    static const std::regex kStep(R"(^ProfilerStep#\d+$)");
    return std::regex_match(name.begin(), name.end(), kStep);
}

/// Union length of `ranges` (sorted by start) clipped to [a, b).
TimeNs unionIn(const std::vector<std::pair<TimeNs, TimeNs>>& ranges, TimeNs a, TimeNs b)
{
    TimeNs total = 0, reached = a;
    for (const auto& [s, e] : ranges) {
        if (s >= b)
            break;
        const TimeNs from = std::max(s, reached);
        const TimeNs to = std::min(e, b);
        if (to > from) {
            total += to - from;
            reached = to;
        }
    }
    return total;
}

/// Time of `list` (sorted by start) inside [a, b).
TimeNs timeIn(
    const std::vector<VariabilityInstance>& list, TimeNs maxDurationNs, TimeNs a, TimeNs b)
{
    auto it = std::lower_bound(list.begin(), list.end(), a - maxDurationNs,
        [](const VariabilityInstance& i, TimeNs t) { return i.startNs < t; });
    TimeNs total = 0;
    for (; it != list.end() && it->startNs < b; ++it) {
        const TimeNs from = std::max(it->startNs, a);
        const TimeNs to = std::min(it->startNs + it->durationNs, b);
        if (to > from)
            total += to - from;
    }
    return total;
}

struct CauseList
{
    std::size_t worker = 0;
    const TrackInstances* list = nullptr;
    TimeNs longestNs = 0;
};

struct CauseName
{
    const std::string* name = nullptr;
    std::vector<CauseList> lists;
};

struct WorkerSteps
{
    std::vector<Step> steps;
    std::vector<std::pair<TimeNs, TimeNs>> comm;  ///< by start
};

std::vector<WorkerSteps> gatherSteps(
    const VariabilityPartial& partial, const WorkerMap& map, bool& profilerSteps)
{
    std::vector<WorkerSteps> out(map.workers.size());
    profilerSteps = false;
    for (const auto& [name, tracks] : partial.names) {
        const bool step = isStepName(name);
        for (const auto& [track, list] : tracks) {
            const int w = map.workerOf[track];
            if (w < 0 || !map.native[track])
                continue;
            WorkerSteps& ws = out[static_cast<std::size_t>(w)];
            for (const VariabilityInstance& i : list.instances) {
                if (step) {
                    ws.steps.push_back({ name, i.startNs, i.startNs + i.durationNs });
                    profilerSteps = true;
                } else if (list.role == model::Role::Comm) {
                    ws.comm.emplace_back(i.startNs, i.startNs + i.durationNs);
                }
            }
        }
    }
    for (WorkerSteps& ws : out)
        std::sort(ws.comm.begin(), ws.comm.end());
    if (profilerSteps)
        return out;
    for (WorkerSteps& ws : out) {
        // Outermost collectives only: one nested in another is the same wait.
        TimeNs previousEnd = -1;
        int k = 0;
        for (const auto& [s, e] : ws.comm) {
            if (s < previousEnd)
                continue;
            if (previousEnd >= 0)
                ws.steps.push_back({ "collective " + std::to_string(k), previousEnd, e });
            previousEnd = e;
            ++k;
        }
    }
    return out;
}

}  // namespace

std::vector<Straggler> findStragglers(const VariabilityPartial& partial, const WorkerMap& map,
    std::string& stepSource, int& stepsCompared)
{
    bool profilerSteps = false;
    const std::vector<WorkerSteps> perWorker = gatherSteps(partial, map, profilerSteps);
    // step name -> (worker, its step): a step recorded twice on a worker keeps the first.
    std::map<std::string, std::vector<std::pair<std::size_t, Step>>> byName;
    for (std::size_t w = 0; w < perWorker.size(); ++w) {
        std::set<std::string> seen;
        for (const Step& s : perWorker[w].steps) {
            if (seen.insert(s.name).second)
                byName[s.name].emplace_back(w, s);
        }
    }
    stepsCompared = 0;
    stepSource.clear();
    // The names that can be causes (not steps, not collectives) and their lists on native
    // tracks, with each list's longest instance, found once for every step.
    std::vector<CauseName> causeNames;
    for (const auto& [name, tracks] : partial.names) {
        if (isStepName(name))
            continue;
        CauseName c { &name, {} };
        bool comm = false;
        for (const auto& [track, list] : tracks) {
            comm = comm || list.role == model::Role::Comm;
            const int w = map.workerOf[track];
            if (w < 0 || !map.native[track] || list.instances.empty())
                continue;
            TimeNs longest = 0;
            for (const VariabilityInstance& i : list.instances)
                longest = std::max(longest, i.durationNs);
            c.lists.push_back({ static_cast<std::size_t>(w), &list, longest });
        }
        if (!comm && !c.lists.empty())
            causeNames.push_back(std::move(c));
    }
    std::map<std::size_t, Straggler> found;
    // name -> per step: excess summed for the straggler
    std::map<std::size_t, std::map<std::string, TimeNs>> causeNs;
    for (const auto& [stepName, entries] : byName) {
        if (entries.size() < 2)
            continue;
        std::vector<TimeNs> work, lengths;
        TimeNs waited = 0;
        for (const auto& [w, s] : entries) {
            const TimeNs length = s.endNs - s.startNs;
            const TimeNs comm = unionIn(perWorker[w].comm, s.startNs, s.endNs);
            lengths.push_back(length);
            work.push_back(length - comm);
            waited += comm;
        }
        if (waited == 0)
            continue;  // no collective in the step: nobody waits for anybody
        ++stepsCompared;
        const std::size_t top =
            static_cast<std::size_t>(std::max_element(work.begin(), work.end()) - work.begin());
        std::vector<TimeNs> others;
        for (std::size_t i = 0; i < work.size(); ++i) {
            if (i != top)
                others.push_back(work[i]);
        }
        const TimeNs excess = work[top] - medianOf(others);
        const TimeNs stepLength = medianOf(lengths);
        if (static_cast<double>(excess) < kStragglerThreshold * static_cast<double>(stepLength))
            continue;
        const auto& [worker, step] = entries[top];
        Straggler& s = found[worker];
        s.worker = map.workers[worker].name;
        s.excessNs += excess;
        s.steps.push_back({ stepName, step.startNs, step.endNs, excess });

        // Causes: each name's time in the step, straggler vs the others' median.
        for (const CauseName& c : causeNames) {
            std::vector<TimeNs> timeOf(entries.size(), 0);
            bool any = false;
            for (const CauseList& l : c.lists) {
                for (std::size_t e = 0; e < entries.size(); ++e) {
                    if (entries[e].first != l.worker)
                        continue;
                    timeOf[e] += timeIn(l.list->instances, l.longestNs, entries[e].second.startNs,
                        entries[e].second.endNs);
                    any = true;
                }
            }
            if (!any)
                continue;
            std::vector<TimeNs> rest;
            for (std::size_t e = 0; e < entries.size(); ++e) {
                if (e != top)
                    rest.push_back(timeOf[e]);
            }
            causeNs[worker][*c.name] += timeOf[top] - medianOf(rest);
        }
    }
    stepSource = stepsCompared == 0 ? "" : profilerSteps ? "ProfilerStep" : "collectives";

    std::vector<Straggler> out;
    for (auto& [worker, s] : found) {
        for (const auto& [name, ns] : causeNs[worker]) {
            if (ns > 0)
                s.causes.push_back({ name, ns });
        }
        std::sort(
            s.causes.begin(), s.causes.end(), [](const StragglerCause& a, const StragglerCause& b) {
                return a.excessNs != b.excessNs ? a.excessNs > b.excessNs : a.name < b.name;
            });
        if (s.causes.size() > 5)
            s.causes.resize(5);
        std::sort(s.steps.begin(), s.steps.end(),
            [](const StragglerStep& a, const StragglerStep& b) { return a.startNs < b.startNs; });
        out.push_back(std::move(s));
    }
    std::sort(out.begin(), out.end(), [](const Straggler& a, const Straggler& b) {
        return a.excessNs != b.excessNs ? a.excessNs > b.excessNs : a.worker < b.worker;
    });
    return out;
}

}  // namespace strata::storage::detail
