#include "views/color_palette.h"

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

} // namespace strata::views
