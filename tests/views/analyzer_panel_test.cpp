// The Analyzer panel's cells are storage::profileNames' statistics.

#include "storage/analysis/name_profile.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "tests/support/temp_dir.h"
#include "views/analyzer_panel.h"

#include <QTableWidget>

#include <catch2/catch.hpp>

using namespace strata;

TEST_CASE("the analyzer's totals per track and name are name_profile's", "[gui][analyzer]")
{
    test::TempDir dir;
    const auto path = dir / "a.strata";
    {
        storage::StoreBuilder b(path);
        const auto process = b.addTrack(model::kNoTrack, model::ResourceKind::Process, "rank 0");
        for (int t = 0; t < 2; ++t) {
            const auto thread = b.addTrack(process, model::ResourceKind::Thread, "worker " + std::to_string(t));
            for (int i = 0; i < 300; ++i)
                b.addInterval(thread, {i * 100'000LL, i * 100'000LL + 20'000 + t * 30'000 + (i % 3) * 10'000,
                                       b.intern(i % 3 ? "gemm" : "allreduce"), {}, 0});
        }
        b.finish();
    }
    storage::StoreReader store(path);
    views::AnalyzerPanel panel(store);
    panel.waitForProfile();
    const model::TimeRange window{5'000'000, 12'345'000};
    panel.setWindow(window);
    panel.waitForProfile();
    REQUIRE(panel.profile()->window == window);

    std::vector<model::TrackId> tracks;
    for (model::TrackId t = 0; t < store.resources().tracks().size(); ++t)
        if (store.summary(t).intervals > 0)
            tracks.push_back(t);
    const storage::NameProfile expected = storage::profileNames(store, tracks, window);
    QTableWidget* table = panel.table();
    REQUIRE(table->rowCount() == 2);
    int checked = 0;
    for (int row = 0; row < table->rowCount(); ++row) {
        const auto track = static_cast<model::TrackId>(table->item(row, 0)->data(Qt::UserRole + 1).toLongLong());
        for (int c = 1; c < table->columnCount(); ++c) {
            const std::string name = table->horizontalHeaderItem(c)->text().toStdString();
            for (const storage::NameStat& s : expected.rows) {
                if (s.track == track && store.strings().text(s.name) == name) {
                    CHECK(table->item(row, c)->data(Qt::UserRole).toDouble() == Approx(s.totalNs));
                    ++checked;
                }
            }
        }
    }
    CHECK(checked == 4);

    // Count cells, and clicking one names its track and name.
    panel.setStatistic(views::ProfileStatistic::Count);
    CHECK(table->item(0, 1)->data(Qt::UserRole).toDouble() > 0);
    model::StringId clicked = model::kEmptyString;
    QObject::connect(&panel, &views::AnalyzerPanel::cellActivated,
                     [&](model::TrackId, model::StringId name) { clicked = name; });
    emit table->cellClicked(0, 1);
    CHECK(store.strings().text(clicked) == table->horizontalHeaderItem(1)->text().toStdString());

    // Darker cells for larger values.
    panel.setStatistic(views::ProfileStatistic::Total);
    double maxV = 0;
    QColor darkest;
    for (int c = 1; c < table->columnCount(); ++c)
        for (int r = 0; r < table->rowCount(); ++r)
            if (table->item(r, c)->data(Qt::UserRole).toDouble() > maxV) {
                maxV = table->item(r, c)->data(Qt::UserRole).toDouble();
                darkest = table->item(r, c)->background().color();
            }
    CHECK(darkest.lightness() < 100);
}
