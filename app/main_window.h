#pragma once
// The main window: the timeline in the centre; the overview strip above it; the details
// of the selection and the legend beside it (dockable). The toolbar holds navigation
// (back, forward, fit, zoom to range), colouring, the track filter and search. Files
// open from File > Open, recent files, drag and drop, or several at once (the ranks of
// one run); raw traces are ingested first (app/trace_opener.h). Window layout and recent
// files persist in QSettings.

#include "storage/store/store_reader.h"
#include "views/color_palette.h"

#include <QMainWindow>

#include <memory>

class QComboBox;
class QLabel;
class QMenu;

namespace strata::views {
class AnalyzerPanel;
class CounterChartsPanel;
class DetailsPanel;
class EfficiencyPanel;
class LegendPanel;
class OverviewStrip;
class SearchBar;
class TimelineWidget;
class VariabilityPanel;
struct TimelineData;
} // namespace strata::views

namespace strata::app {

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(std::unique_ptr<storage::StoreReader> store, QWidget* parent = nullptr);
    ~MainWindow() override;

    views::TimelineWidget* timeline() const { return m_timeline; }
    views::SearchBar* searchBar() const { return m_search; }
    views::OverviewStrip* overview() const { return m_overview; }
    views::DetailsPanel* details() const { return m_details; }
    views::EfficiencyPanel* efficiency() const { return m_efficiency; }
    views::AnalyzerPanel* analyzer() const { return m_analyzer; }
    views::VariabilityPanel* variability() const { return m_variability; }
    /// The counter charts dock's panel (null when the store has no counter track).
    views::CounterChartsPanel* counters() const { return m_counters; }

    /// Opens stores or raw traces in a new window (several raw traces: one run).
    static void openPaths(const QStringList& paths, QWidget* parent);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildMenus();
    void buildToolbar();
    void buildDocks();
    void buildAnalysisDocks();
    void showNameInWindow(model::TrackId track, model::StringId name);
    void showInstance(model::TrackId track, model::TimeNs startNs, const QString& name);
    void openFiles();
    void exportImage(QWidget* what);
    void exportSubTrace();
    void updateRecentMenu();
    void updateStatus();

    std::unique_ptr<storage::StoreReader> m_store;
    views::TimelineWidget* m_timeline = nullptr;
    views::OverviewStrip* m_overview = nullptr;
    views::DetailsPanel* m_details = nullptr;
    views::CounterChartsPanel* m_counters = nullptr;
    views::LegendPanel* m_legend = nullptr;
    std::weak_ptr<const views::TimelineData> m_legendData;  ///< what the legend shows
    views::ColorBy m_legendMode = views::ColorBy::Name;
    views::EfficiencyPanel* m_efficiency = nullptr;
    views::AnalyzerPanel* m_analyzer = nullptr;
    views::VariabilityPanel* m_variability = nullptr;
    QComboBox* m_colorBy = nullptr;
    views::SearchBar* m_search = nullptr;
    QMenu* m_recentMenu = nullptr;
    QLabel* m_statusWindow = nullptr;
    QLabel* m_statusCursor = nullptr;
    QLabel* m_statusFrame = nullptr;
};

/// Recent files, most recent first (QSettings "recentFiles").
QStringList recentFiles();
void addRecentFile(const QString& path);

} // namespace strata::app
