// The Efficiency panel on the 4-rank DDP run: its numbers are computeEfficiency's, the
// window column follows the window, low values are red.

#include "storage/analysis/efficiency_report.h"
#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "tests/support/temp_dir.h"
#include "views/efficiency_panel.h"

#include <QTableWidget>
#include <QDockWidget>
#include <QMainWindow>
#include <QTest>

#include <catch2/catch.hpp>

using namespace strata;

namespace {

/// The four ranks of the DDP run in one store, aligned as `strata ingest` aligns them;
/// an empty path when the shared real-trace folder is absent.
std::filesystem::path ddpStore(const test::TempDir& dir)
{
    const auto path = dir / "ddp.strata";
    std::vector<std::filesystem::path> inputs;
    for (int r = 0; r < 4; ++r) {
        inputs.push_back(test::realTrace("h100/kineto_ddp_rank" + std::to_string(r) + ".json.gz"));
        if (inputs.back().empty())
            return {};
    }
    std::optional<model::TimeNs> origin;
    for (const auto& input : inputs) {
        const auto o = storage::chromeTraceOriginNs(input);
        origin = origin ? std::min(*origin, *o) : *o;
    }
    storage::StoreBuilder builder(path);
    for (int r = 0; r < 4; ++r) {
        storage::ChromeImportOptions options;
        options.rank = r;
        options.originNs = origin;
        storage::importChromeJson(inputs[static_cast<std::size_t>(r)], builder, options);
    }
    builder.finish();
    return path;
}

/// The panel's cell for a metric row (by its name) and column.
std::optional<double> cell(const views::EfficiencyPanel& panel, const QString& metric, int column)
{
    QTableWidget* t = panel.metricsTable();
    for (int row = 0; row < t->rowCount(); ++row) {
        if (t->verticalHeaderItem(row)->text().trimmed() == metric) {
            const QVariant v = t->item(row, column)->data(Qt::UserRole);
            return v.isValid() ? std::optional<double>(v.toDouble()) : std::nullopt;
        }
    }
    return std::nullopt;
}

} // namespace

TEST_CASE("the efficiency panel shows computeEfficiency's GPU metrics and follows the window",
          "[gui][efficiency]")
{
    test::TempDir dir;
    const auto ddp = ddpStore(dir);
    if (ddp.empty())
        return;  // the shared real-trace folder is absent
    storage::StoreReader store(ddp);
    views::EfficiencyPanel panel(store);
    panel.resize(1000, 300);
    panel.waitForReports();
    REQUIRE(panel.level() == model::WorkerLevel::Gpu);

    storage::EfficiencyRequest request;
    request.level = model::WorkerLevel::Gpu;
    const storage::EfficiencyReport whole = storage::computeEfficiency(store, request);
    REQUIRE(whole.gpu);
    CHECK(cell(panel, "Parallel efficiency", 0) == Approx(whole.pop.parallelEfficiency));
    CHECK(cell(panel, "Load balance", 0) == Approx(whole.pop.loadBalance));
    CHECK(cell(panel, "Communication efficiency", 0) == Approx(whole.gpu->communicationEfficiency));
    CHECK(cell(panel, "Orchestration efficiency", 0) == Approx(whole.gpu->orchestrationEfficiency));
    CHECK(cell(panel, "Host communication efficiency", 0) == Approx(whole.hostPop->communicationEfficiency));
    CHECK(panel.workersTable()->rowCount() == static_cast<int>(whole.workers.size()));
    CHECK(panel.workersTable()->rowCount() == 4);
    // Before any window change the window column is the whole run too.
    CHECK(cell(panel, "Load balance", 1) == Approx(whole.pop.loadBalance));

    // A window in the middle of the run: the window column changes, the whole-run one stays.
    const model::TimeRange span = store.span();
    const model::TimeRange window{span.startNs + span.durationNs() / 2, span.startNs + span.durationNs() * 3 / 4};
    request.window = window;
    const storage::EfficiencyReport inWindow = storage::computeEfficiency(store, request);
    REQUIRE(inWindow.pop.loadBalance != Approx(whole.pop.loadBalance));
    panel.setWindow({span.startNs, span.startNs + 1000}); // superseded before it starts
    panel.setWindow(window);
    panel.waitForReports();
    CHECK(panel.windowReport()->window == window);
    CHECK(cell(panel, "Load balance", 1) == Approx(inWindow.pop.loadBalance));
    CHECK(cell(panel, "Parallel efficiency", 1) == Approx(inWindow.pop.parallelEfficiency));
    CHECK(cell(panel, "Load balance", 0) == Approx(whole.pop.loadBalance));

    // Clicking a worker row names its tracks; clicking CommE names comm and sync.
    std::vector<model::TrackId> tracks;
    QObject::connect(&panel, &views::EfficiencyPanel::workerActivated,
                     [&](const QString&, const std::vector<model::TrackId>& t) { tracks = t; });
    emit panel.workersTable()->cellClicked(0, 0);
    CHECK_FALSE(tracks.empty());
    std::vector<model::Role> roles;
    QObject::connect(&panel, &views::EfficiencyPanel::rolesLosingEfficiency,
                     [&](const QString&, const std::vector<model::Role>& r) { roles = r; });
    for (int row = 0; row < panel.metricsTable()->rowCount(); ++row)
        if (panel.metricsTable()->verticalHeaderItem(row)->text().trimmed() == "Host communication efficiency")
            emit panel.metricsTable()->cellClicked(row, 0);
    CHECK(roles == std::vector<model::Role>{model::Role::Comm, model::Role::Sync});

    // Switching level recomputes both columns at that level.
    panel.setLevel(model::WorkerLevel::Process);
    panel.waitForReports();
    request = {};
    request.level = model::WorkerLevel::Process;
    CHECK(cell(panel, "Parallel efficiency", 0) == Approx(storage::computeEfficiency(store, request).pop.parallelEfficiency));
    CHECK_FALSE(cell(panel, "Orchestration efficiency", 0));
}

TEST_CASE("efficiency colours: low values red, middling orange, high green", "[gui][efficiency]")
{
    const QColor low = views::efficiencyColor(0.04);
    CHECK(low.red() > low.green() + 60);
    CHECK(low.red() > low.blue() + 60);
    const QColor mid = views::efficiencyColor(0.6);
    CHECK(mid.red() > mid.blue());
    CHECK(mid.green() > low.green());
    const QColor high = views::efficiencyColor(0.95);
    CHECK(high.green() > high.red() + 40);
    // Issue 19: POP's scale is red below 0.6 and green from 0.8.
    const QColor justBelow = views::efficiencyColor(0.59);
    CHECK(justBelow.red() > justBelow.green() + 60);
    const QColor atGreen = views::efficiencyColor(0.8);
    CHECK(atGreen.green() > atGreen.red());
    CHECK(views::efficiencyScaleText().contains("0.6"));
}

TEST_CASE("an efficiency panel behind another dock tab computes nothing until raised", "[gui][efficiency]")
{
    test::TempDir dir;
    const auto ddp = ddpStore(dir);
    if (ddp.empty())
        return;  // the shared real-trace folder is absent
    storage::StoreReader store(ddp);
    QMainWindow window;
    window.setCentralWidget(new QWidget);
    auto* front = new QDockWidget(QStringLiteral("front"), &window);
    front->setWidget(new QWidget);
    auto* back = new QDockWidget(QStringLiteral("efficiency"), &window);
    auto* panel = new views::EfficiencyPanel(store);
    back->setWidget(panel);
    QObject::connect(back, &QDockWidget::visibilityChanged, panel, [panel](bool visible) {
        if (visible)
            panel->resume();
    });
    window.addDockWidget(Qt::BottomDockWidgetArea, front);
    window.tabifyDockWidget(front, back);
    front->raise();
    window.resize(1000, 700);
    window.show();
    panel->setWindow({ 1'000'000, 2'000'000 });
    QTest::qWait(500);  // past the pause after a window change
    CHECK(panel->isVisible());  // Qt's view of a tab behind another: "visible"
    CHECK_FALSE(panel->wholeRunReport());
    CHECK_FALSE(panel->windowReport());
    back->raise();  // the user picks its tab
    for (int i = 0; i < 2000 && !panel->windowReport(); ++i)
        QTest::qWait(10);
    REQUIRE(panel->windowReport());
    CHECK(panel->windowReport()->window.startNs == 1'000'000);
}
