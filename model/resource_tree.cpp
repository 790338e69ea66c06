#include "model/resource_tree.h"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace strata::model {

namespace {
constexpr std::array<std::string_view, 7> kKindNames = {"node",   "process", "thread", "gpu",
                                                        "stream", "counter", "group"};
}

std::string_view resourceKindName(ResourceKind kind)
{
    return kKindNames[static_cast<std::size_t>(kind)];
}

std::optional<ResourceKind> parseResourceKind(std::string_view name)
{
    for (std::size_t i = 0; i < kKindNames.size(); ++i) {
        if (kKindNames[i] == name)
            return static_cast<ResourceKind>(i);
    }
    return std::nullopt;
}

TrackId ResourceTree::add(TrackId parent, ResourceKind kind, std::string name,
                          std::int64_t sortKey, std::string unit)
{
    if (parent != kNoTrack && parent >= m_tracks.size())
        throw std::out_of_range("ResourceTree::add: unknown parent");
    const auto id = static_cast<TrackId>(m_tracks.size());
    m_tracks.push_back({id, parent, kind, std::move(name), sortKey, std::move(unit)});
    return id;
}

void ResourceTree::truncate(std::size_t size)
{
    if (size < m_tracks.size())
        m_tracks.resize(size);
}

void ResourceTree::restore(TrackInfo info)
{
    if (info.id != m_tracks.size() || (info.parent != kNoTrack && info.parent >= info.id))
        throw std::invalid_argument("ResourceTree::restore: ids must be dense, parents first");
    m_tracks.push_back(std::move(info));
}

std::vector<TrackId> ResourceTree::children(TrackId parent) const
{
    std::vector<TrackId> out;
    for (const TrackInfo& t : m_tracks) {
        if (t.parent == parent)
            out.push_back(t.id);
    }
    std::stable_sort(out.begin(), out.end(), [this](TrackId a, TrackId b) {
        return m_tracks[a].sortKey < m_tracks[b].sortKey;
    });
    return out;
}

std::string ResourceTree::path(TrackId id) const
{
    std::string out = m_tracks[id].name;
    for (TrackId p = m_tracks[id].parent; p != kNoTrack; p = m_tracks[p].parent)
        out = m_tracks[p].name + "/" + out;
    return out;
}

std::optional<TrackId> ResourceTree::findChild(TrackId parent, ResourceKind kind,
                                               std::string_view name) const
{
    for (const TrackInfo& t : m_tracks) {
        if (t.parent == parent && t.kind == kind && t.name == name)
            return t.id;
    }
    return std::nullopt;
}

} // namespace strata::model
