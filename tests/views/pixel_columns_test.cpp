// The counter rows fold hundreds of thousands of samples into pixel columns through
// PixelColumns, which skips the arithmetic for a time inside the column it located last:
// each time must still get the column the formula gives, wherever it falls.

#include "views/pixel_columns.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace strata;

namespace {

/// The timeline's column of a time before PixelColumns: x as TimelineFrame::xOf gives it,
/// less the label column, floored and clamped.
int formulaColumn(model::TimeNs t, model::TimeNs startNs, double pxPerNs, int width, double label)
{
    const double x = label + static_cast<double>(t - startNs) * pxPerNs;
    return static_cast<int>(std::clamp(std::floor(x - label), -1.0, static_cast<double>(width)));
}

}  // namespace

TEST_CASE("floorToInt is floor", "[timeline][columns]") {
    std::mt19937_64 random(3);
    std::uniform_real_distribution<double> any(-2e9, 2e9);
    std::uniform_real_distribution<double> small(-4, 4);
    for (int i = 0; i < 200'000; ++i) {
        const double x = i % 2 ? any(random) : small(random);
        REQUIRE(views::floorToInt(x) == static_cast<int>(std::floor(x)));
    }
    for (const double x : { 0.0, -0.0, -0.5, -1.0, 1.0, 1e-300, -1e-300, 2.9999999999999996,
             -2.9999999999999996, -1.0000000000000002 })
        CHECK(views::floorToInt(x) == static_cast<int>(std::floor(x)));
}

TEST_CASE("pixel columns of times taken in order equal the formula's", "[timeline][columns]") {
    struct Window
    {
        model::TimeNs startNs, durationNs;
        int width;
        double label;
    };
    // A whole run and a wide window (many ns to a column), a window of a few us, one of
    // 700 ns (several columns to a ns), one starting before 0, and the overview's (no
    // label column).
    const Window windows[] = { { -704'791'242, 71'888'706'750, 1740, 180 },
        { 0, 36'800'000'000, 1740, 180 }, { 10'000'001'234, 3'333, 1740, 180 },
        { 5'000'000'000, 700, 1920, 180 }, { -1'000'000, 3'000'001, 999, 0 } };
    std::mt19937_64 random(11);
    for (const Window& w : windows) {
        const double pxPerNs = w.width / static_cast<double>(w.durationNs);
        INFO("window " << w.startNs << " + " << w.durationNs << " ns over " << w.width << " px");
        views::PixelColumns columns(w.startNs, pxPerNs, w.width, w.label);
        // Samples in order from before the window to after it: gaps of a tenth of a
        // column on average (so most land in the column of the one before), some of
        // 1-3 ns (on a column's edge), some jumps.
        const double nsPerColumn = w.durationNs / static_cast<double>(w.width);
        std::exponential_distribution<double> gap(10 / std::max(1.0, nsPerColumn));
        model::TimeNs t = w.startNs - w.durationNs / 10 - 5;
        int checked = 0;
        while (t < w.startNs + w.durationNs + w.durationNs / 10 + 5) {
            const int expected = formulaColumn(t, w.startNs, pxPerNs, w.width, w.label);
            REQUIRE(columns(t) == expected);
            REQUIRE(columns.columnOf(t) == expected);
            ++checked;
            const auto r = random() % 100;
            t += r < 10  ? static_cast<model::TimeNs>(r % 3 + 1)
                : r < 12 ? static_cast<model::TimeNs>(nsPerColumn * (r % 5 + 1))
                         : static_cast<model::TimeNs>(gap(random)) + 1;
        }
        CHECK(checked
            > std::min<model::TimeNs>(10 * w.width, w.durationNs));  // every ns of a short one
        // Out of order too (the chart's cursor jumps back): still the formula's column.
        std::uniform_int_distribution<model::TimeNs> anywhere(
            w.startNs - w.durationNs, w.startNs + 2 * w.durationNs);
        for (int i = 0; i < 20'000; ++i) {
            const model::TimeNs u = anywhere(random);
            REQUIRE(columns(u) == formulaColumn(u, w.startNs, pxPerNs, w.width, w.label));
        }
    }
}
