#include "views/color_palette.h"

#include "views/kernel_metric_colors.h"

#include <array>
#include <cstdint>

namespace strata::views {

QColor colorForName(std::string_view name)
{
    // FNV-1a: stable across runs and platforms (std::hash is not).
    std::uint32_t h = 2166136261u;
    for (const char c : name) {
        h ^= static_cast<unsigned char>(c);
        h *= 16777619u;
    }
    const int hue = static_cast<int>(h % 360);
    const int saturation = 150 + static_cast<int>((h >> 9) % 80);
    const int value = 170 + static_cast<int>((h >> 17) % 60);
    return QColor::fromHsv(hue, saturation, value).toRgb();
}

QColor colorForRole(model::Role role)
{
    // Paraver-like: running blue, communication orange, sync red, transfer green.
    static const std::array<QColor, model::kRoleCount> kColors = {
        QColor(0x3b, 0x7d, 0xd8), QColor(0xf0, 0x8c, 0x1e), QColor(0xd6, 0x32, 0x32),
        QColor(0x3c, 0xb3, 0x71), QColor(0x9b, 0x59, 0xb6), QColor(0xb0, 0xb0, 0xb0)};
    return kColors[static_cast<std::size_t>(role)];
}

namespace {
constexpr model::StringId kUnknownCategory = 0xFFFFFFFFu;
}

Palette::Palette(const model::StringTable& strings, const std::map<std::string, std::string>& meta)
    : m_strings(&strings)
    , m_namedRgb(std::make_unique<std::atomic<QRgb>[]>(strings.size()))
    , m_categoryOfName(std::make_unique<std::atomic<model::StringId>[]>(strings.size()))
    , m_ids(strings.size())
{
    for (std::size_t i = 0; i < m_ids; ++i)
        m_categoryOfName[i].store(kUnknownCategory, std::memory_order_relaxed);
    constexpr std::string_view kPrefix = "paraver.state_color.";
    for (auto it = meta.lower_bound(std::string(kPrefix)); it != meta.end() && it->first.starts_with(kPrefix); ++it) {
        const QColor color(QString::fromStdString(it->second));
        if (color.isValid())
            m_traceColors.emplace(it->first.substr(kPrefix.size()), color);
    }
}

QColor Palette::colorOfText(model::StringId id) const
{
    const std::string_view text = m_strings ? m_strings->text(id) : std::string_view();
    if (!m_traceColors.empty()) {
        if (const auto it = m_traceColors.find(std::string(text)); it != m_traceColors.end())
            return it->second;
    }
    return colorForName(text);
}

QColor Palette::named(model::StringId id) const
{
    return id >= m_ids ? colorOfText(id) : QColor::fromRgb(namedRgb(id));
}

QRgb Palette::namedRgb(model::StringId id) const
{
    if (id >= m_ids)
        return colorOfText(id).rgb();
    std::atomic<QRgb>& cached = m_namedRgb[id];
    QRgb rgb = cached.load(std::memory_order_relaxed);
    if (rgb == 0) {  // opaque colours are never 0
        rgb = colorOfText(id).rgb();
        cached.store(rgb, std::memory_order_relaxed);
    }
    return rgb;
}

void Palette::learnCategory(model::StringId name, model::StringId category) const
{
    if (name >= m_ids)
        return;
    model::StringId unknown = kUnknownCategory;
    m_categoryOfName[name].compare_exchange_strong(unknown, category, std::memory_order_relaxed);
}

QColor Palette::interval(model::StringId name, model::StringId category, model::Role role) const
{
    switch (m_mode) {
    case ColorBy::Name: return named(name);
    case ColorBy::Category:
        learnCategory(name, category);
        return named(category);
    case ColorBy::Role: return colorForRole(role);
    case ColorBy::KernelMetric: return KernelMetricColors::noValue();
    }
    return named(name);
}

QColor Palette::interval(model::TrackId track, const model::Interval& e) const
{
    if (m_mode != ColorBy::KernelMetric)
        return interval(e.name, e.category, e.role);
    return m_kernelMetric ? m_kernelMetric->color(track, e.startNs) : KernelMetricColors::noValue();
}

QRgb Palette::intervalRgb(model::TrackId track, const model::Interval& e) const
{
    return m_mode == ColorBy::Name ? namedRgb(e.name) : interval(track, e).rgb();
}

QColor Palette::coverage(model::StringId name, model::Role role) const
{
    switch (m_mode) {
    case ColorBy::Name: return named(name);
    case ColorBy::Category:
        if (name < m_ids) {
            const model::StringId category = m_categoryOfName[name].load(std::memory_order_relaxed);
            if (category != kUnknownCategory)
                return named(category);
        }
        return colorForRole(role);
    case ColorBy::Role: return colorForRole(role);
    case ColorBy::KernelMetric: return KernelMetricColors::noValue();  // cells fold many kernels
    }
    return named(name);
}

std::string Palette::key(model::StringId name, model::StringId category, model::Role role) const
{
    switch (m_mode) {
    case ColorBy::Name: return std::string(m_strings ? m_strings->text(name) : "");
    case ColorBy::Category: return std::string(m_strings ? m_strings->text(category) : "");
    case ColorBy::Role: return std::string(model::roleName(role));
    case ColorBy::KernelMetric: return "no metric value";  // the gradient has its own legend
    }
    return {};
}

QColor Palette::keyColor(std::string_view key) const
{
    if (m_mode == ColorBy::Role) {
        if (const auto role = model::parseRole(key))
            return colorForRole(*role);
    }
    if (const auto it = m_traceColors.find(std::string(key)); it != m_traceColors.end())
        return it->second;
    return colorForName(key);
}

} // namespace strata::views
