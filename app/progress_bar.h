#pragma once
// A terminal progress bar on stderr, drawn only when stderr is a TTY (CI logs stay
// clean): fraction done, rate (the caller's unit per second: "MB/s" for bytes) and the
// time left. Redraws at most ~10 times a second. The rate and the time left appear once
// kMinRateSeconds have passed with some work done: before that, a rate is noise (the
// first update, microseconds after the start, once read "3145725.0 M/s").

#include "app/ingest_job.h"
#include "storage/store/progress.h"

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

namespace strata::app {

/// How long a bar waits before it shows a rate.
inline constexpr double kMinRateSeconds = 0.5;

/// One frame of the bar, without the carriage return: `label`, a 30-column bar, the
/// percentage and, from kMinRateSeconds on, the rate in `unit`/s with an SI prefix
/// ("3.146 MB/s" for unit "B", "25k events/s") and the time left: "reading t.json [####....]  42.0%
/// 3.146 MB/s ETA 2s".
std::string progressLine(std::string_view label, std::uint64_t done, std::uint64_t total,
    double seconds, std::string_view unit);

class ProgressBar
{
public:
    /// `unit` is what the counts count ("B", "events", "tracks").
    ProgressBar(std::string label, std::string unit);
    /// Drawn only if `enabled` (strata-mpi's rank 0, whose stderr is a pipe to mpirun,
    /// asks whether mpirun's is a terminal).
    ProgressBar(std::string label, std::string unit, bool enabled);
    ~ProgressBar();
    /// Updates the bar; always returns true (the CLI is cancelled with Ctrl-C).
    bool update(std::uint64_t done, std::uint64_t total);
    /// A ProgressFn that updates this bar.
    storage::ProgressFn callback();

private:
    std::string m_label;
    std::string m_unit;
    bool m_enabled;
    bool m_drawn = false;
    bool m_drawnComplete = false;  ///< the frame on screen shows done == total
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_last;
};

/// The bars of an ingest: a new one for each phase ("reading NAME", then "tiling").
class IngestProgressBars
{
public:
    IngestProgress callback();
    /// Clears the last bar.
    void finish() { m_bar.reset(); }

private:
    std::unique_ptr<ProgressBar> m_bar;
    std::string m_phase;
};

}  // namespace strata::app
