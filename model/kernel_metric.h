#pragma once
// A hardware-counter value measured for one GPU kernel (Nsight Compute): the per-kernel
// table that lets a view color each kernel interval by, say, its tensor-pipe utilisation.
// The kernel is named by its interval's track and start time (unique on a stream track).

#include "model/events.h"

namespace strata::model {

struct KernelMetric
{
    TrackId track = kNoTrack;  ///< the kernel interval's track
    TimeNs startNs = 0;  ///< the kernel interval's start
    StringId metric = kEmptyString;  ///< "sm__throughput.avg.pct_of_peak_sustained_elapsed"
    double value = 0;
    StringId unit = kEmptyString;  ///< "%", "byte", "ns", or empty
    friend bool operator==(const KernelMetric&, const KernelMetric&) = default;
};

}  // namespace strata::model
