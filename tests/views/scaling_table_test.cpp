// The POP scaling table in the GUI (issue 19): the Efficiency panel's "Compare runs…"
// computes it on a worker and shows one column per run, reference first, with POP's
// colours (green from 0.8, red below 0.6) on the efficiencies.

#include "storage/import/paraver/paraver_importer.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "views/efficiency_panel.h"
#include "views/scaling_table_widget.h"

#include <QApplication>
#include <QImage>
#include <QTableWidget>

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

using namespace strata;

namespace {

std::filesystem::path ingestFixture(const test::TempDir& dir, const std::string& name)
{
    const auto store = dir / (name + ".strata");
    storage::StoreBuilder builder(store);
    storage::importParaver(
        std::filesystem::path(STRATA_TEST_DATA_DIR) / "paraver" / (name + ".prv"), builder);
    builder.finish();
    return store;
}

/// The item of the row whose label (trimmed) is `label`, in `column`.
QTableWidgetItem* item(QTableWidget* t, const QString& label, int column)
{
    for (int row = 0; row < t->rowCount(); ++row) {
        if (t->verticalHeaderItem(row)->text().trimmed() == label)
            return t->item(row, column);
    }
    FAIL("no row " << label.toStdString());
    return nullptr;
}

}  // namespace

TEST_CASE(
    "Compare runs: the scaling table of this store and others, reference first", "[gui][scaling]") {
    test::TempDir dir;
    const auto chain = ingestFixture(dir, "serial_chain");
    const auto pingpong = ingestFixture(dir, "pingpong");
    storage::StoreReader store(chain);
    views::EfficiencyPanel panel(store);
    views::ScalingDialog* dialog = panel.compareRuns({ pingpong, chain });
    dialog->waitForTable();
    QTableWidget* t = dialog->tableWidget()->table();
    REQUIRE(t->columnCount() == 2);  // the panel's own store is not listed twice
    // The 2-rank ping-pong is the reference, whatever the order given.
    CHECK(t->horizontalHeaderItem(0)->text() == "pingpong");
    CHECK(item(t, "Serialization efficiency", 0)->text() == "1.00");
    CHECK(item(t, "Serialization efficiency", 1)->text() == "0.33");
    CHECK(item(t, "Average useful IPC", 1)->text() == "-");  // the chain has no counters
    CHECK(item(t, "Processes x threads", 1)->text() == "3 x 1");

    // POP colours: SerE 1.00 green, 0.33 red, and the cells show them when rendered.
    const QColor green = item(t, "Serialization efficiency", 0)->background().color();
    const QColor red = item(t, "Serialization efficiency", 1)->background().color();
    CHECK(green.green() > green.red());
    CHECK(red.red() > red.green() + 60);
    dialog->resize(900, 560);
    dialog->setAttribute(Qt::WA_DontShowOnScreen);
    dialog->show();
    QApplication::processEvents();
    const QImage image = dialog->grab().toImage();
    const QTableWidgetItem* redCell = item(t, "Serialization efficiency", 1);
    const QRect rect = t->visualItemRect(redCell);
    const QPoint inCell =
        t->viewport()->mapTo(dialog, rect.topLeft() + QPoint(4, rect.height() / 2));
    const QColor painted = image.pixelColor(inCell);
    CHECK(painted.red() > painted.green() + 60);
    delete dialog;
}

TEST_CASE("the Efficiency panel shows the whole run's serialization / transfer split",
    "[gui][efficiency][scaling]") {
    test::TempDir dir;
    storage::StoreReader store(ingestFixture(dir, "serial_chain"));
    views::EfficiencyPanel panel(store);
    panel.setLevel(model::WorkerLevel::Process);
    panel.waitForReports();
    QApplication::processEvents();
    // SerE = 100 / 300, TE = 300 / 303 (tests/storage/analysis/ideal_replay_test.cpp).
    CHECK(item(panel.metricsTable(), "Serialization / Transfer", 0)->text() == "0.333 / 0.990");
    CHECK(item(panel.metricsTable(), "Serialization / Transfer", 1)->text() == "n/a");
}
