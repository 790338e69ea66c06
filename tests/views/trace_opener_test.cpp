// Issue 14, item 1, the GUI side: File > Open (and `strata FILE...` with a display) open
// through the same Qt-free opener as the no-display path: a raw trace is ingested beside
// it and reused; a bad file is named, with its position, in a message box, and the window
// it was opened from stays as it was.

#include "app/trace_opener.h"

#include "app/main_window.h"
#include "storage/store/store_reader.h"

#include <QApplication>
#include <QMessageBox>
#include <QTimer>

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <fstream>

using namespace strata;

namespace {

/// Closes every message box that comes up while it lives, keeping its text.
class MessageBoxCloser
{
public:
    MessageBoxCloser()
    {
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                texts << box->text();
                box->done(QMessageBox::Ok);
            }
        });
        m_timer.start(20);
    }
    QStringList texts;

private:
    QTimer m_timer;
};

int mainWindows()
{
    int n = 0;
    for (QWidget* w : QApplication::topLevelWidgets())
        n += qobject_cast<app::MainWindow*>(w) != nullptr && w->isVisible();
    return n;
}

}  // namespace

TEST_CASE("issue 14: the GUI opener ingests a raw trace beside it, reuses it, and names a bad file "
          "in a message box",
    "[views][open]") {
    test::TempDir dir;
    const auto trace = dir / "run.json";
    REQUIRE(test::runStrata({ "synth", "-o", trace.string(), "--events", "5000" }).exitCode == 0);

    MessageBoxCloser closer;
    const auto store = app::storeForPaths({ QString::fromStdString(trace.string()) }, nullptr);
    REQUIRE(store);
    CHECK(*store == dir / "run.json.strata");
    CHECK(storage::StoreReader(*store).meta("source").value_or("") == trace.string());
    const auto built = std::filesystem::last_write_time(*store);
    CHECK(app::storeForPaths({ QString::fromStdString(trace.string()) }, nullptr) == store);
    CHECK(std::filesystem::last_write_time(*store) == built);
    CHECK(closer.texts.isEmpty());

    const auto broken = dir / "broken.json";
    std::ofstream(broken) << R"({"traceEvents": [{"ph":"X", "ts": 1, "dur": 2, "pid": 1, @@@)";
    CHECK_FALSE(app::storeForPaths({ QString::fromStdString(broken.string()) }, nullptr));
    REQUIRE(closer.texts.size() == 1);
    CHECK(closer.texts[0].contains(QString::fromStdString(broken.string())));
    CHECK(closer.texts[0].contains(QStringLiteral("byte")));

    // What ingest refuses, the GUI refuses too: a file beside the trace that is not a
    // store is not replaced, and a trace with no event makes no store.
    const auto other = dir / "other.json";
    REQUIRE(test::runStrata({ "synth", "-o", other.string(), "--events", "500" }).exitCode == 0);
    std::ofstream(dir / "other.json.strata") << "notes\n";
    CHECK_FALSE(app::storeForPaths({ QString::fromStdString(other.string()) }, nullptr));
    REQUIRE(closer.texts.size() == 2);
    CHECK(closer.texts[1].contains(QStringLiteral("not a Strata store")));
    const auto empty = dir / "empty.json";
    std::ofstream(empty) << R"({"traceEvents": []})";
    CHECK_FALSE(app::storeForPaths({ QString::fromStdString(empty.string()) }, nullptr));
    REQUIRE(closer.texts.size() == 3);
    CHECK(closer.texts[2].startsWith(QStringLiteral("no events in ")));
    CHECK_FALSE(std::filesystem::exists(dir / "empty.json.strata"));

    // From a window: the message box, and the window stays, alone.
    app::MainWindow window(std::make_unique<storage::StoreReader>(*store));
    window.show();
    QApplication::processEvents();
    const int windows = mainWindows();
    app::MainWindow::openPaths({ QString::fromStdString(broken.string()) }, &window);
    CHECK(closer.texts.size() == 4);
    CHECK(window.isVisible());
    CHECK(mainWindows() == windows);
}
