#pragma once
// The key of ColorBy::KernelMetric: the metric's name and unit, a blue-to-red bar from its
// minimum to its maximum, and the grey of kernels without a value.

#include "views/kernel_metric_colors.h"

#include <QWidget>

namespace strata::views {

class GradientLegend : public QWidget
{
    Q_OBJECT
public:
    explicit GradientLegend(QWidget* parent = nullptr);
    void setMetric(std::shared_ptr<const KernelMetricColors> metric);
    const KernelMetricColors* metric() const { return m_metric.get(); }
    QSize sizeHint() const override { return {400, 40}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::shared_ptr<const KernelMetricColors> m_metric;
};

} // namespace strata::views
