#include "views/counter_series.h"

#include <algorithm>
#include <limits>

namespace strata::views {

namespace {

class SeriesBuilder
{
public:
    explicit SeriesBuilder(model::TimeRange window) : m_window(window) {}

    void add(model::TimeNs t, double lo, double hi, double mean, bool inRange)
    {
        const double x = static_cast<double>(t);
        m_out.minPoints.append({x, lo});
        m_out.maxPoints.append({x, hi});
        m_out.meanPoints.append({x, mean});
        if (inRange) {
            m_lo = std::min(m_lo, lo);
            m_hi = std::max(m_hi, hi);
        }
    }
    bool visible(model::TimeNs from, model::TimeNs to) const { return to > m_window.startNs && from < m_window.endNs; }

    CounterSeries finish(bool exact)
    {
        m_out.exact = exact;
        if (m_lo <= m_hi) {
            m_out.minValue = m_lo;
            m_out.maxValue = m_hi;
        }
        return std::move(m_out);
    }

private:
    model::TimeRange m_window;
    CounterSeries m_out;
    double m_lo = std::numeric_limits<double>::infinity();
    double m_hi = -std::numeric_limits<double>::infinity();
};

} // namespace

CounterSeries counterSeries(const storage::TrackSlice& slice, const model::LodGrid& grid, model::TimeRange window,
                            model::TimeNs trackEndNs)
{
    const model::TimeNs holdUntil = std::min(window.endNs, trackEndNs);
    SeriesBuilder b(window);
    if (slice.counterLevel == 0) {
        // A step function: each value holds until the next sample.
        const auto& s = slice.samples;
        for (std::size_t i = 0; i < s.size(); ++i) {
            const model::TimeNs until = i + 1 < s.size() ? s[i + 1].timeNs : s[i].timeNs;
            b.add(s[i].timeNs, s[i].value, s[i].value, s[i].value, b.visible(s[i].timeNs, std::max(until, s[i].timeNs + 1)));
            if (i + 1 < s.size())
                b.add(until, s[i].value, s[i].value, s[i].value, false);
            else if (holdUntil > s[i].timeNs)
                b.add(holdUntil, s[i].value, s[i].value, s[i].value, false);
        }
        return b.finish(true);
    }
    const model::TimeNs w = grid.bucketNs(slice.counterLevel);
    const auto& c = slice.counterCells;
    for (std::size_t i = 0; i < c.size(); ++i) {
        const model::TimeNs start = c[i].bucket * w;
        b.add(start, c[i].min, c[i].max, c[i].mean, b.visible(start, start + w));
        // Buckets without samples up to the next cell hold this cell's last value.
        const model::TimeNs end = start + w;
        if (i + 1 < c.size() && c[i + 1].bucket * w > end) {
            b.add(end, c[i].last, c[i].last, c[i].last, b.visible(end, c[i + 1].bucket * w));
            b.add(c[i + 1].bucket * w, c[i].last, c[i].last, c[i].last, false);
        }
        if (i + 1 == c.size() && holdUntil > end)
            b.add(holdUntil, c[i].last, c[i].last, c[i].last, b.visible(end, holdUntil));
    }
    return b.finish(false);
}

} // namespace strata::views
