#include "app/progress_bar.h"

#include <cstdio>
#include <unistd.h>

namespace strata::app {

ProgressBar::ProgressBar(std::string label)
    : m_label(std::move(label))
    , m_enabled(::isatty(STDERR_FILENO) != 0)
    , m_start(std::chrono::steady_clock::now())
{
}

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
    if (m_drawn && now - m_last < std::chrono::milliseconds(100) && done < total)
        return true;
    m_last = now;
    m_drawn = true;
    const double fraction = total ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(fraction * kWidth);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(kWidth, '.');
    // Rate and time left from the average since the start.
    const double seconds = std::chrono::duration<double>(now - m_start).count();
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
    char eta[32] = "";
    if (rate > 0 && done < total)
        std::snprintf(eta, sizeof eta, " ETA %.0fs", static_cast<double>(total - done) / rate);
    std::fprintf(stderr, "\r\033[K%s [%s] %5.1f%%  %.1f M/s%s", m_label.c_str(), bar.c_str(), 100.0 * fraction,
                 rate / 1e6, eta);
    std::fflush(stderr);
    return true;
}

storage::ProgressFn ProgressBar::callback()
{
    return [this](std::uint64_t done, std::uint64_t total) { return update(done, total); };
}

} // namespace strata::app
