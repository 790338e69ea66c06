#include "views/gradient_legend.h"

#include <QLinearGradient>
#include <QPainter>

namespace strata::views {

GradientLegend::GradientLegend(QWidget* parent) : QWidget(parent)
{
    setMinimumHeight(40);
    hide();
}

void GradientLegend::setMetric(std::shared_ptr<const KernelMetricColors> metric)
{
    m_metric = std::move(metric);
    setVisible(m_metric != nullptr);
    update();
}

void GradientLegend::paintEvent(QPaintEvent*)
{
    if (!m_metric)
        return;
    QPainter p(this);
    const QFontMetrics fm(p.font());
    const QString unit = m_metric->unit().isEmpty() ? QString() : QStringLiteral(" (%1)").arg(m_metric->unit());
    p.setPen(Qt::black);
    p.drawText(QRect(4, 0, width() - 8, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(tr("kernels by %1%2").arg(m_metric->metric(), unit), Qt::ElideMiddle, width() - 8));
    const QString lo = QString::number(m_metric->minValue(), 'g', 4);
    const QString hi = QString::number(m_metric->maxValue(), 'g', 4);
    const QString none = tr("no value");
    const int y = fm.height() + 2;
    const int h = std::max(8, height() - y - 2);
    int x = 4;
    p.drawText(QRect(x, y, fm.horizontalAdvance(lo), h), Qt::AlignVCenter, lo);
    x += fm.horizontalAdvance(lo) + 4;
    const int noneWidth = h + 4 + fm.horizontalAdvance(none) + 12;
    const int barWidth = std::max(20, width() - x - fm.horizontalAdvance(hi) - 8 - noneWidth);
    QLinearGradient g(x, 0, x + barWidth, 0);
    for (const double t : {0.0, 0.25, 0.5, 0.75, 1.0})
        g.setColorAt(t, KernelMetricColors::gradient(t));
    p.fillRect(QRect(x, y, barWidth, h), g);
    x += barWidth + 4;
    p.drawText(QRect(x, y, fm.horizontalAdvance(hi), h), Qt::AlignVCenter, hi);
    x += fm.horizontalAdvance(hi) + 12;
    p.fillRect(QRect(x, y, h, h), KernelMetricColors::noValue());
    p.drawText(QRect(x + h + 4, y, fm.horizontalAdvance(none), h), Qt::AlignVCenter, none);
}

} // namespace strata::views
