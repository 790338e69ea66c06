#include "storage/import/common/kernel_recorder.h"

#include <charconv>
#include <cstdlib>

namespace strata::storage {

namespace {

/// The position just after `"key":` and spaces, or npos.
std::size_t valueAfter(std::string_view json, std::string_view key)
{
    const std::string quoted = "\"" + std::string(key) + "\"";
    std::size_t at = 0;
    while ((at = json.find(quoted, at)) != std::string_view::npos) {
        std::size_t p = at + quoted.size();
        while (p < json.size() && (json[p] == ' ' || json[p] == '\t'))
            ++p;
        if (p < json.size() && json[p] == ':') {
            ++p;
            while (p < json.size() && (json[p] == ' ' || json[p] == '\t'))
                ++p;
            return p;
        }
        at = p;
    }
    return std::string_view::npos;
}

/// `[16, 1, 1]` after `"key":` as "16,1,1", or "".
std::string jsonTriple(std::string_view json, std::string_view key)
{
    const std::size_t p = valueAfter(json, key);
    if (p == std::string_view::npos || json[p] != '[')
        return {};
    const std::size_t close = json.find(']', p);
    if (close == std::string_view::npos)
        return {};
    std::string out;
    for (char c : json.substr(p + 1, close - p - 1)) {
        if (c != ' ' && c != '\t')
            out.push_back(c);
    }
    return out;
}

/// The integer starting at `at` in `text`, or nullopt.
std::optional<std::int64_t> integerAt(std::string_view text, std::size_t at)
{
    if (at >= text.size())
        return std::nullopt;
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data() + at, text.data() + text.size(), v);
    if (ec != std::errc())
        return std::nullopt;
    return v;
}

/// The first number in a track name ("stream 7" -> 7, "GPU 0 (rank 1)" -> 0: a rank
/// suffix follows the device).
std::optional<std::int64_t> numberInName(std::string_view name)
{
    return integerAt(name, name.find_first_of("0123456789"));
}

}  // namespace

std::optional<std::int64_t> jsonIntegerField(std::string_view json, std::string_view key)
{
    return integerAt(json, valueAfter(json, key));
}

model::TrackId KernelRecorder::addTrack(model::TrackId parent, model::ResourceKind kind,
    std::string name, std::int64_t sortKey, std::string unit)
{
    const model::TrackId id = m_inner.addTrack(parent, kind, name, sortKey, unit);
    if (id >= m_tracks.size())
        m_tracks.resize(id + 1);
    m_tracks[id] = { id, parent, kind, std::move(name), sortKey, std::move(unit) };
    return id;
}

const model::TrackInfo* KernelRecorder::track(model::TrackId id) const
{
    return id < m_tracks.size() && m_tracks[id].id == id ? &m_tracks[id] : nullptr;
}

void KernelRecorder::setMeta(std::string key, std::string value)
{
    if (key == "origin_ns") {
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec == std::errc() && end == value.data() + value.size())
            m_originNs = v;
    }
    m_inner.setMeta(std::move(key), std::move(value));
}

void KernelRecorder::addInterval(
    model::TrackId track, const model::Interval& interval, std::string_view args)
{
    m_inner.addInterval(track, interval, args);
    const model::TrackInfo* info = this->track(track);
    if (!info || info->kind != model::ResourceKind::Stream || interval.role != model::Role::Useful)
        return;
    // GPU-side annotation ranges (Kineto's gpu_user_annotation, NVTX ranges projected on a
    // stream) span kernels; they are not kernels.
    const std::string_view category = m_inner.strings().text(interval.category);
    if (category.find("annotation") != std::string_view::npos
        || category.find("nvtx") != std::string_view::npos
        || category.find("NVTX") != std::string_view::npos)
        return;
    RecordedKernel& k = m_kernels.emplace_back();
    k.track = track;
    k.startNs = interval.startNs;
    k.endNs = interval.endNs;
    k.name = interval.name;
    k.device = jsonIntegerField(args, "device");
    k.stream = jsonIntegerField(args, "stream");
    k.correlation = jsonIntegerField(args, "correlation");
    k.grid = jsonTriple(args, "grid");
    k.block = jsonTriple(args, "block");
    const model::TrackInfo* gpu = this->track(info->parent);
    if (gpu && gpu->kind == model::ResourceKind::Gpu) {
        k.gpuTrack = gpu->id;
        if (!k.device)
            k.device = numberInName(gpu->name);
    }
    if (!k.stream)
        k.stream = numberInName(info->name);
}

}  // namespace strata::storage
