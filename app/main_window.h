#pragma once
// The main window: the timeline in the centre, frame timings in the status bar.
// Later issues add the docks (overview, details, counters, flame graph, efficiency).

#include "storage/store_reader.h"

#include <QMainWindow>

#include <memory>

namespace strata::views {
class TimelineWidget;
}

namespace strata::app {

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(std::unique_ptr<storage::StoreReader> store, QWidget* parent = nullptr);
    ~MainWindow() override;

private:
    void openFile();

    std::unique_ptr<storage::StoreReader> m_store;
    views::TimelineWidget* m_timeline = nullptr;
};

} // namespace strata::app
