#include "model/workers.h"

#include <array>

namespace strata::model {

namespace {

constexpr std::array<std::string_view, 4> kLevelNames = { "process", "thread", "gpu", "stream" };

void collect(const ResourceTree& tree, TrackId id, const std::function<bool(TrackId)>& hasIntervals,
    std::vector<TrackId>& out)
{
    if (hasIntervals(id))
        out.push_back(id);
    for (TrackId child : tree.children(id))
        collect(tree, child, hasIntervals, out);
}

void visit(const ResourceTree& tree, TrackId id, ResourceKind kind,
    const std::function<bool(TrackId)>& hasIntervals, std::vector<Worker>& out)
{
    if (tree.track(id).kind == kind) {
        Worker w { id, tree.path(id), {} };
        collect(tree, id, hasIntervals, w.tracks);
        if (!w.tracks.empty())
            out.push_back(std::move(w));
        return;
    }
    for (TrackId child : tree.children(id))
        visit(tree, child, kind, hasIntervals, out);
}

}  // namespace

std::string_view workerLevelName(WorkerLevel level)
{
    return kLevelNames[static_cast<std::size_t>(level)];
}

std::optional<WorkerLevel> parseWorkerLevel(std::string_view name)
{
    for (std::size_t i = 0; i < kLevelNames.size(); ++i) {
        if (kLevelNames[i] == name)
            return static_cast<WorkerLevel>(i);
    }
    return std::nullopt;
}

bool isDeviceLevel(WorkerLevel level)
{
    return level == WorkerLevel::Gpu || level == WorkerLevel::Stream;
}

std::vector<Worker> workersAt(
    const ResourceTree& tree, WorkerLevel level, const std::function<bool(TrackId)>& hasIntervals)
{
    constexpr std::array<ResourceKind, 4> kKinds = { ResourceKind::Process, ResourceKind::Thread,
        ResourceKind::Gpu, ResourceKind::Stream };
    std::vector<Worker> out;
    for (TrackId root : tree.children(kNoTrack))
        visit(tree, root, kKinds[static_cast<std::size_t>(level)], hasIntervals, out);
    return out;
}

}  // namespace strata::model
