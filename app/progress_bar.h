#pragma once
// A terminal progress bar on stderr, drawn only when stderr is a TTY (CI logs stay
// clean): fraction done, rate (units of the caller's counts per second: bytes, events)
// and the time left. Redraws at most ~10 times a second.

#include "storage/store/progress.h"

#include <chrono>
#include <string>

namespace strata::app {

class ProgressBar
{
public:
    explicit ProgressBar(std::string label);
    ~ProgressBar();
    /// Updates the bar; always returns true (the CLI is cancelled with Ctrl-C).
    bool update(std::uint64_t done, std::uint64_t total);
    /// A ProgressFn that updates this bar.
    storage::ProgressFn callback();
    void setLabel(std::string label) { m_label = std::move(label); }

private:
    std::string m_label;
    bool m_enabled;
    bool m_drawn = false;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_last;
};

} // namespace strata::app
