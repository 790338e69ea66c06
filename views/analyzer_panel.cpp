#include "views/analyzer_panel.h"

#include "views/on_screen_work.h"

#include "model/time_units.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace strata::views {

namespace {

constexpr std::array kLevels = { model::WorkerLevel::Process, model::WorkerLevel::Thread,
    model::WorkerLevel::Gpu, model::WorkerLevel::Stream };

/// Sorts by the number kept in Qt::UserRole (empty cells last), not by the text.
class NumberItem : public QTableWidgetItem
{
public:
    using QTableWidgetItem::QTableWidgetItem;
    bool operator<(const QTableWidgetItem& other) const override
    {
        const QVariant a = data(Qt::UserRole), b = other.data(Qt::UserRole);
        if (!a.isValid() || !b.isValid())
            return a.isValid() > b.isValid();
        return a.toDouble() < b.toDouble();
    }
};

/// What the cells of one (track, column) hold, summed over the names it groups.
struct Cell
{
    model::TimeNs totalNs = 0;
    std::optional<std::int64_t> count;
    std::optional<double> mean, stddev, cv;
    double share = 0;
};

std::optional<double> statistic(const Cell& c, ProfileStatistic s)
{
    switch (s) {
    case ProfileStatistic::Total:
        return static_cast<double>(c.totalNs);
    case ProfileStatistic::Count:
        return c.count ? std::optional<double>(static_cast<double>(*c.count)) : std::nullopt;
    case ProfileStatistic::Mean:
        return c.mean;
    case ProfileStatistic::StdDev:
        return c.stddev;
    case ProfileStatistic::CV:
        return c.cv;
    case ProfileStatistic::WindowShare:
        return c.share;
    }
    return std::nullopt;
}

QString statisticText(double v, ProfileStatistic s)
{
    switch (s) {
    case ProfileStatistic::Count:
        return QString::number(static_cast<qint64>(v));
    case ProfileStatistic::CV:
        return QString::number(v, 'f', 2);
    case ProfileStatistic::WindowShare:
        return QStringLiteral("%1%").arg(100.0 * v, 0, 'f', 1);
    default:
        return QString::fromStdString(model::formatDuration(static_cast<model::TimeNs>(v)));
    }
}

/// White to dark blue; dark cells get white text.
QColor heat(double fraction)
{
    const double f = std::clamp(fraction, 0.0, 1.0);
    const QColor dark(16, 42, 92);
    auto mix = [f](int white, int d) { return static_cast<int>(white + (d - white) * f); };
    return QColor(mix(255, dark.red()), mix(255, dark.green()), mix(255, dark.blue()));
}

} // namespace

AnalyzerPanel::AnalyzerPanel(storage::StoreReader& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_window(store.span())
{
    m_levelBox = new QComboBox(this);
    for (model::WorkerLevel level : kLevels)
        m_levelBox->addItem(QString::fromUtf8(model::workerLevelName(level).data()));
    m_levelBox->setCurrentIndex(1);
    connect(m_levelBox, &QComboBox::currentIndexChanged, this,
            [this](int i) { setLevel(kLevels[static_cast<std::size_t>(i)]); });
    m_statBox = new QComboBox(this);
    m_statBox->addItems({tr("total time"), tr("count"), tr("mean"), tr("stddev"), tr("CV"), tr("% of window")});
    m_statBox->setToolTip(tr("Count, mean, stddev and CV need exact events: a track with more events in the "
                             "window than the panel reads shows only times."));
    connect(m_statBox, &QComboBox::currentIndexChanged, this, &AnalyzerPanel::rebuild);
    m_columnsBox = new QComboBox(this);
    m_columnsBox->addItems({tr("names"), tr("roles")});
    connect(m_columnsBox, &QComboBox::currentIndexChanged, this, &AnalyzerPanel::rebuild);
    m_topN = new QSpinBox(this);
    m_topN->setRange(1, 200);
    m_topN->setValue(12);
    m_topN->setPrefix(tr("top "));
    connect(m_topN, &QSpinBox::valueChanged, this, &AnalyzerPanel::rebuild);
    m_status = new QLabel(this);

    m_table = new QTableWidget(this);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSortingEnabled(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(m_table, &QTableWidget::cellClicked, this, [this](int row, int column) {
        const QTableWidgetItem* label = m_table->item(row, 0);
        if (column < 1 || !label || m_columnsBox->currentIndex() != 0)
            return;
        const auto track = static_cast<model::TrackId>(label->data(Qt::UserRole + 1).toLongLong());
        const auto c = static_cast<std::size_t>(column - 1);
        if (c < m_columnNames.size() && m_columnNames[c] != storage::kOtherNames)
            emit cellActivated(track, m_columnNames[c]);
    });

    auto* top = new QHBoxLayout;
    for (QWidget* w : std::initializer_list<QWidget*>{new QLabel(tr("Rows"), this), m_levelBox,
                                                       new QLabel(tr("columns"), this), m_columnsBox, m_topN,
                                                       new QLabel(tr("cell"), this), m_statBox})
        top->addWidget(w);
    top->addWidget(m_status, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_table, 1);

    m_work.requestNow();
}

AnalyzerPanel::~AnalyzerPanel() = default;

void AnalyzerPanel::setWindow(model::TimeRange window)
{
    if (window == m_window)
        return;
    m_window = window;
    m_work.request();
}

void AnalyzerPanel::setLevel(model::WorkerLevel level)
{
    m_level = level;
    m_levelBox->blockSignals(true);
    m_levelBox->setCurrentIndex(static_cast<int>(std::find(kLevels.begin(), kLevels.end(), level) - kLevels.begin()));
    m_levelBox->blockSignals(false);
    m_work.requestNow();
}

void AnalyzerPanel::setStatistic(ProfileStatistic statistic)
{
    m_statBox->setCurrentIndex(static_cast<int>(statistic));
}

void AnalyzerPanel::setColumnsByRole(bool byRole)
{
    m_columnsBox->setCurrentIndex(byRole ? 1 : 0);
}

void AnalyzerPanel::waitForProfile()
{
    m_work.runPending();
    m_runner.waitUntilIdle();
}

void AnalyzerPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    resume();
}

void AnalyzerPanel::resume()
{
    m_work.resume();
}

void AnalyzerPanel::compute()
{
    std::vector<model::TrackId> tracks;
    for (const model::Worker& w : model::workersAt(m_store.resources(), m_level,
                                                   [&](model::TrackId t) { return m_store.summary(t).intervals > 0; }))
        tracks.insert(tracks.end(), w.tracks.begin(), w.tracks.end());
    m_status->setText(tr("computing…"));
    m_runner.submit([this, &store = m_store, tracks = std::move(tracks),
                     window = m_window]() -> LatestJobRunner::Continuation {
        try {
            auto profile = std::make_shared<storage::NameProfile>(storage::profileNames(store, tracks, window));
            return [this, profile] {
                m_profile = std::move(*profile);
                m_status->setText(tr("window %1").arg(
                    QString::fromStdString(model::formatDuration(m_profile->window.durationNs()))));
                rebuild();
            };
        } catch (const std::exception& e) {
            return [this, message = QString::fromUtf8(e.what())] { m_status->setText(tr("failed: %1").arg(message)); };
        }
    });
}

void AnalyzerPanel::rebuild()
{
    m_table->setSortingEnabled(false);
    m_table->clear();
    m_table->setRowCount(0);
    if (!m_profile)
        return;
    const auto stat = static_cast<ProfileStatistic>(m_statBox->currentIndex());
    const bool byRole = m_columnsBox->currentIndex() == 1;
    m_topN->setEnabled(!byRole);

    // Rows in the profile's track order; columns: top names by total time, or roles.
    m_rowTracks.clear();
    std::map<model::StringId, model::TimeNs> nameTotals;
    for (const storage::NameStat& s : m_profile->rows) {
        if (m_rowTracks.empty() || m_rowTracks.back() != s.track)
            m_rowTracks.push_back(s.track);
        nameTotals[s.name] += s.totalNs;
    }
    QStringList headers{tr("track")};
    m_columnNames.clear();
    if (byRole) {
        for (model::Role r : model::kAllRoles)
            headers << QString::fromUtf8(model::roleName(r).data());
    } else {
        std::vector<std::pair<model::TimeNs, model::StringId>> order;
        for (const auto& [name, t] : nameTotals)
            order.emplace_back(t, name);
        std::sort(order.begin(), order.end(), std::greater<>());
        for (std::size_t i = 0; i < order.size() && i < static_cast<std::size_t>(m_topN->value()); ++i) {
            m_columnNames.push_back(order[i].second);
            headers << (order[i].second == storage::kOtherNames
                            ? tr("(other names)")
                            : QString::fromUtf8(m_store.strings().text(order[i].second).data(),
                                                static_cast<qsizetype>(m_store.strings().text(order[i].second).size())));
        }
    }
    const int columns = static_cast<int>(headers.size()) - 1;
    // cells[row][column]
    std::vector<std::vector<std::optional<Cell>>> cells(m_rowTracks.size(),
                                                        std::vector<std::optional<Cell>>(static_cast<std::size_t>(columns)));
    std::map<model::TrackId, std::size_t> rowOf;
    for (std::size_t i = 0; i < m_rowTracks.size(); ++i)
        rowOf[m_rowTracks[i]] = i;
    for (const storage::NameStat& s : m_profile->rows) {
        int column = -1;
        if (byRole) {
            column = static_cast<int>(s.role);
        } else {
            const auto it = std::find(m_columnNames.begin(), m_columnNames.end(), s.name);
            column = it == m_columnNames.end() ? -1 : static_cast<int>(it - m_columnNames.begin());
        }
        if (column < 0)
            continue;
        auto& slot = cells[rowOf[s.track]][static_cast<std::size_t>(column)];
        if (!slot) {
            slot = Cell{s.totalNs, s.count, s.meanNs, s.stddevNs, s.coefficientOfVariation, s.windowShare};
            continue;
        }
        // Several names in one role column: times and counts add; spread does not.
        slot->totalNs += s.totalNs;
        slot->share += s.windowShare;
        slot->count = slot->count && s.count ? std::optional(*slot->count + *s.count) : std::nullopt;
        slot->mean = slot->count && *slot->count > 0
            ? std::optional(static_cast<double>(slot->totalNs) / static_cast<double>(*slot->count))
            : std::nullopt;
        slot->stddev = slot->cv = std::nullopt;
    }

    double maxValue = 0;
    for (const auto& row : cells)
        for (const auto& c : row)
            if (c)
                maxValue = std::max(maxValue, statistic(*c, stat).value_or(0));

    m_table->setColumnCount(columns + 1);
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(static_cast<int>(m_rowTracks.size()));
    for (std::size_t r = 0; r < m_rowTracks.size(); ++r) {
        auto* label = new QTableWidgetItem(QString::fromStdString(m_store.resources().path(m_rowTracks[r])));
        label->setData(Qt::UserRole + 1, static_cast<qlonglong>(m_rowTracks[r]));
        m_table->setItem(static_cast<int>(r), 0, label);
        for (int c = 0; c < columns; ++c) {
            auto* item = new NumberItem;
            const auto& cell = cells[r][static_cast<std::size_t>(c)];
            if (const std::optional<double> v = cell ? statistic(*cell, stat) : std::nullopt) {
                const double f = maxValue > 0 ? *v / maxValue : 0;
                item->setText(statisticText(*v, stat));
                item->setData(Qt::UserRole, *v);
                item->setBackground(heat(f));
                item->setForeground(f > 0.55 ? QColor(Qt::white) : QColor(Qt::black));
            }
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(static_cast<int>(r), c + 1, item);
        }
    }
    m_table->setSortingEnabled(true);
}

} // namespace strata::views
