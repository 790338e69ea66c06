// The Variability dock (issue 18): box plots per worker from storage::computeVariability,
// the stragglers list, and clicks that move the main window's timeline.

#include "views/variability_panel.h"

#include "app/main_window.h"
#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/store/store_builder.h"
#include "views/timeline_widget.h"

#include <QApplication>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QSignalSpy>
#include <QTreeWidget>

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

using namespace strata;

namespace {

std::filesystem::path fixtureStore(const test::TempDir& dir)
{
    const auto path = dir / "v.strata";
    storage::StoreBuilder builder(path, {});
    storage::importChromeJson(
        std::filesystem::path(STRATA_TEST_DATA_DIR) / "chrome/ddp_straggler.json", builder);
    builder.finish();
    return path;
}

/// The first item of the details tree whose first column reads `text`.
QTreeWidgetItem* findItem(QTreeWidget* tree, const QString& text)
{
    const auto found = tree->findItems(text, Qt::MatchExactly | Qt::MatchRecursive, 0);
    return found.isEmpty() ? nullptr : found.front();
}

}  // namespace

TEST_CASE("the variability panel draws a box per worker and lists the straggler's steps",
    "[gui][variability]") {
    test::TempDir dir;
    storage::StoreReader store(fixtureStore(dir));
    views::VariabilityPanel panel(store);
    panel.resize(1200, 500);
    panel.waitForReport();
    REQUIRE(panel.report());
    REQUIRE(panel.report()->names.front().name == "dataloader_wait");

    QBoxPlotSeries* boxes = panel.boxes();
    REQUIRE(boxes->count() == 4);
    const QBoxSet* rank2 = boxes->boxSets()[2];
    CHECK(rank2->label() == QStringLiteral("rank 2"));
    CHECK(rank2->at(QBoxSet::Median) == Approx(30.0));  // ms: the axis reads in ms
    CHECK(boxes->boxSets()[0]->at(QBoxSet::Median) == Approx(1.0));

    // A straggler's step moves the timeline to that step.
    QTreeWidgetItem* step = findItem(panel.details(), QStringLiteral("ProfilerStep#3"));
    REQUIRE(step);
    CHECK(step->parent()->text(0) == QStringLiteral("rank 2"));
    QSignalSpy steps(&panel, &views::VariabilityPanel::stepActivated);
    emit panel.details()->itemClicked(step, 0);
    REQUIRE(steps.count() == 1);
    const auto range = steps.front().front().value<model::TimeRange>();
    CHECK(range.startNs == 82'000'000);
    CHECK(range.endNs == 82'000'000 + 40'600'000);

    // A worker's box names the worker and its tracks (the timeline shows only those).
    QSignalSpy workers(&panel, &views::VariabilityPanel::workerActivated);
    emit boxes->clicked(boxes->boxSets()[2]);
    REQUIRE(workers.count() == 1);
    CHECK(workers.front().front().toString() == QStringLiteral("rank 2"));
    const auto tracks = workers.front()[1].value<std::vector<model::TrackId>>();
    REQUIRE(tracks.size() == 1);
    CHECK(store.resources().path(tracks.front()).starts_with("rank 2/"));

    // Another name: the boxes follow it.
    panel.setCurrentName(1);
    CHECK(boxes->count() >= 1);
    CHECK(panel.report()->names[1].name != "dataloader_wait");
}

TEST_CASE("clicking a slow instance or a straggler's step in the Variability dock moves the "
          "timeline there and selects it",
    "[gui][variability]") {
    test::TempDir dir;
    app::MainWindow window(std::make_unique<storage::StoreReader>(fixtureStore(dir)));
    window.resize(1400, 900);
    window.show();
    QApplication::processEvents();
    views::VariabilityPanel* panel = window.variability();
    REQUIRE(panel);
    panel->waitForReport();
    QApplication::processEvents();
    REQUIRE(panel->report());

    QTreeWidgetItem* step = findItem(panel->details(), QStringLiteral("ProfilerStep#2"));
    REQUIRE(step);
    emit panel->details()->itemClicked(step, 0);
    const model::TimeRange expected { 41'000'000, 41'000'000 + 40'600'000 };
    CHECK(window.timeline()->window() == expected);
    CHECK(window.timeline()->selectedRange() == std::optional(expected));

    // The slowest dataloader_wait: rank 2's first, 30 ms at 0.
    QTreeWidgetItem* slowest = findItem(panel->details(), QStringLiteral("Slowest instances"));
    REQUIRE(slowest);
    REQUIRE(slowest->childCount() > 0);
    emit panel->details()->itemClicked(slowest->child(0), 0);
    const auto selection = window.timeline()->selection();
    REQUIRE(selection);
    CHECK(selection->interval.startNs == 0);
    CHECK(selection->interval.durationNs() == 30'000'000);
    CHECK(window.timeline()->window().startNs <= 0);
    CHECK(window.timeline()->window().endNs >= 30'000'000);
}
