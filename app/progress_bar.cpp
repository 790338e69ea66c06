#include "app/progress_bar.h"

#include "model/value_units.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace strata::app {

std::string progressLine(std::string_view label, std::uint64_t done, std::uint64_t total,
    double seconds, std::string_view unit)
{
    const double fraction =
        total ? static_cast<double>(std::min(done, total)) / static_cast<double>(total) : 0.0;
    constexpr int kWidth = 30;
    std::string bar(static_cast<std::size_t>(fraction * kWidth), '#');
    bar.resize(kWidth, '.');
    char percent[16];
    std::snprintf(percent, sizeof percent, "%5.1f%%", 100.0 * fraction);
    std::string line = std::string(label) + " [" + bar + "] " + percent;
    // Rate and time left from the average since the start, once it means something.
    if (seconds >= kMinRateSeconds && done > 0) {
        const double rate = static_cast<double>(done) / seconds;
        // Bytes take the prefix on the unit ("3.146 MB/s"), counted things on the
        // number ("25k events/s").
        line += "  "
            + (unit == "B" ? model::formatQuantity(rate, "B/s")
                           : model::formatQuantity(rate, "") + " " + std::string(unit) + "/s");
        if (done < total) {
            char eta[32];
            std::snprintf(eta, sizeof eta, " ETA %.0fs", static_cast<double>(total - done) / rate);
            line += eta;
        }
    }
    return line;
}

ProgressBar::ProgressBar(std::string label, std::string unit)
    : ProgressBar(std::move(label), std::move(unit), ::isatty(STDERR_FILENO) != 0)
{}

ProgressBar::ProgressBar(std::string label, std::string unit, bool enabled)
    : m_label(std::move(label))
    , m_unit(std::move(unit))
    , m_enabled(enabled)
    , m_start(std::chrono::steady_clock::now())
{}

ProgressBar::~ProgressBar()
{
    if (m_drawn)
        std::fputs("\r\033[K", stderr);
}

bool ProgressBar::update(std::uint64_t done, std::uint64_t total)
{
    if (!m_enabled)
        return true;
    const auto now = std::chrono::steady_clock::now();
    // The last frame is drawn once: importers that read ahead report "all done" many
    // times while they still work.
    const bool complete = done >= total;
    if (m_drawn && now - m_last < std::chrono::milliseconds(100) && (!complete || m_drawnComplete))
        return true;
    m_last = now;
    m_drawn = true;
    m_drawnComplete = complete;
    const double seconds = std::chrono::duration<double>(now - m_start).count();
    std::fprintf(stderr, "\r\033[K%s", progressLine(m_label, done, total, seconds, m_unit).c_str());
    std::fflush(stderr);
    return true;
}

storage::ProgressFn ProgressBar::callback()
{
    return [this](std::uint64_t done, std::uint64_t total) {
        return update(done, total);
    };
}

IngestProgress IngestProgressBars::callback()
{
    return [this](const std::string& phase, std::uint64_t done, std::uint64_t total) {
        if (!m_bar || phase != m_phase) {
            m_bar.reset();  // clears the previous phase's line first
            m_bar = std::make_unique<ProgressBar>(phase, std::string(phaseUnit(phase)));
            m_phase = phase;
        }
        return m_bar->update(done, total);
    };
}

}  // namespace strata::app
