#include "views/kernel_metric_colors.h"

#include <algorithm>

namespace strata::views {

QColor KernelMetricColors::gradient(double t)
{
    t = std::clamp(t, 0.0, 1.0);
    return QColor::fromHsvF(static_cast<float>((1.0 - t) * 240.0 / 360.0), 0.85f, 0.9f).toRgb();
}

std::shared_ptr<const KernelMetricColors> KernelMetricColors::load(storage::StoreReader& store,
                                                                   const std::string& metric)
{
    for (const storage::KernelMetricInfo& info : store.kernelMetricNames()) {
        if (store.strings().text(info.metric) != metric)
            continue;
        auto out = std::make_shared<KernelMetricColors>();
        out->m_metric = QString::fromStdString(metric);
        out->m_unit = QString::fromUtf8(store.strings().text(info.unit));
        out->m_min = info.minValue;
        out->m_max = info.maxValue;
        for (const model::TrackInfo& track : store.resources().tracks()) {
            if (track.kind == model::ResourceKind::Counter || store.summary(track.id).intervals == 0)
                continue;
            for (const model::KernelMetric& m : store.kernelMetrics(track.id, info.metric))
                out->m_values.emplace(std::pair{m.track, m.startNs}, m.value);
        }
        return out;
    }
    return nullptr;
}

std::optional<double> KernelMetricColors::value(model::TrackId track, model::TimeNs startNs) const
{
    const auto it = m_values.find({track, startNs});
    if (it == m_values.end())
        return std::nullopt;
    return it->second;
}

QColor KernelMetricColors::color(model::TrackId track, model::TimeNs startNs) const
{
    const auto v = value(track, startNs);
    if (!v)
        return noValue();
    return gradient(m_max > m_min ? (*v - m_min) / (m_max - m_min) : 1.0);
}

} // namespace strata::views
