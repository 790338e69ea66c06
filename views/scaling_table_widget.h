#pragma once
// ScalingTableWidget: the POP scaling table across runs (model/scaling.h) as the GUI and
// `strata render RUN... --view metrics` show it: one column per run (reference first),
// one row per factor in modelfactors' order, efficiencies and scalabilities coloured on
// POP's scale (efficiencyColor: green from 0.8, red below 0.6), the strong/weak choice
// above and what each run lacks below.
//
// ScalingDialog computes the table of a set of stores on a worker thread (each run opens
// its own StoreReader) and shows it when done; the Efficiency panel's "Compare runs..."
// opens it with its own store and the ones the user picks.

#include "storage/analysis/scaling_run.h"

#include <QDialog>
#include <QWidget>

#include <filesystem>
#include <thread>
#include <vector>

class QLabel;
class QTableWidget;

namespace strata::views {

class ScalingTableWidget : public QWidget
{
    Q_OBJECT
public:
    explicit ScalingTableWidget(QWidget* parent = nullptr);

    void setTable(const model::ScalingTable& table, const std::vector<storage::ScalingRun>& runs);
    /// "computing...", or why there is no table.
    void setMessage(const QString& text);

    QTableWidget* table() const { return m_table; }

private:
    QLabel* m_heading = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_notes = nullptr;
};

class ScalingDialog : public QDialog
{
    Q_OBJECT
public:
    /// Starts computing the table of `stores` at once.
    ScalingDialog(std::vector<std::filesystem::path> stores, QWidget* parent = nullptr);
    ~ScalingDialog() override;

    ScalingTableWidget* tableWidget() const { return m_widget; }
    /// Blocks until the table is shown (tests).
    void waitForTable();

signals:
    void tableReady();

private:
    ScalingTableWidget* m_widget = nullptr;
    bool m_ready = false;
    std::jthread m_worker;
};

}  // namespace strata::views
