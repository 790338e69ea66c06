#pragma once
// Colours kernel intervals by a per-kernel metric (Nsight Compute: SM throughput %, tensor
// pipe activity, DRAM bytes...): blue at the metric's minimum over the store, red at its
// maximum, through cyan, green and yellow; kernels without a value are grey. The values
// are loaded once per metric (one kernelMetrics() call per track that has any) and
// looked up by (track, kernel start), the key the store joins them on.

#include "storage/store/store_reader.h"

#include <QColor>
#include <QString>

#include <map>
#include <memory>
#include <optional>

namespace strata::views {

class KernelMetricColors
{
public:
    /// Kernels without a value, and summary cells (they fold many kernels).
    static QColor noValue() { return {0xc8, 0xc8, 0xc8}; }
    /// The gradient at t in [0, 1] (clamped): 0 blue, 1 red.
    static QColor gradient(double t);

    /// Loads `metric` (by name); nullptr when the store has no such metric.
    static std::shared_ptr<const KernelMetricColors> load(storage::StoreReader& store, const std::string& metric);

    const QString& metric() const { return m_metric; }
    const QString& unit() const { return m_unit; }
    double minValue() const { return m_min; }
    double maxValue() const { return m_max; }
    std::size_t kernels() const { return m_values.size(); }

    std::optional<double> value(model::TrackId track, model::TimeNs startNs) const;
    QColor color(model::TrackId track, model::TimeNs startNs) const;

private:
    QString m_metric, m_unit;
    double m_min = 0, m_max = 0;
    std::map<std::pair<model::TrackId, model::TimeNs>, double> m_values;
};

} // namespace strata::views
