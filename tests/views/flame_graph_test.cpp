// The flame graph renders what the tree holds: a known frame's box at the x and row the
// tree gives it, in a colour that is not the background; clicking zooms, the breadcrumb
// zooms back, search reports the share; the callers/callees table sorts by weight. The
// real perf and Kineto traces render to PNGs (in the temp folder) that we look at.

#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/import/stacks/folded_importer.h"
#include "storage/import/stacks/perf_script_importer.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "tests/support/temp_dir.h"
#include "views/flame_graph_renderer.h"
#include "views/flame_graph_widget.h"

#include <QApplication>
#include <QLabel>
#include <QMouseEvent>
#include <QStandardItemModel>
#include <QTableView>

#include <catch2/catch.hpp>

#include <filesystem>

using namespace strata;

namespace {

std::filesystem::path foldedStore(const test::TempDir& dir)
{
    const auto path = dir / "small.strata";
    storage::StoreBuilder builder(path);
    storage::importFolded(std::filesystem::path(STRATA_TEST_DATA_DIR) / "stacks" / "small.folded", builder);
    builder.finish();
    return path;
}

void save(const QImage& image, const std::string& name)
{
    image.save(QString::fromStdString((std::filesystem::temp_directory_path() / name).string()));
}

int distinctColors(const QImage& image)
{
    QSet<QRgb> colors;
    for (int y = 0; y < image.height(); y += 3) {
        for (int x = 0; x < image.width(); x += 3)
            colors.insert(image.pixel(x, y));
    }
    return colors.size();
}

} // namespace

TEST_CASE("a rendered flame graph puts a known frame's box where the tree says", "[gui][flame]")
{
    test::TempDir dir;
    storage::StoreReader reader(foldedStore(dir));
    // small.folded: main;compute;matmul 5, main;compute 3, main;io;read 2, main 1 (total 11).
    const QSize size(1100, 300);
    views::FlameGraphRequest request;
    const QImage image = views::renderFlameGraphImage(reader, request, size);
    save(image, "strata-flame-small.png");
    REQUIRE(distinctColors(image) > 5);

    views::FlameGraphRenderer renderer;
    renderer.setTree(storage::buildFlameTree(reader, request.source));
    const model::FlameNodeId compute = renderer.tree().find({"main", "compute"});
    REQUIRE(compute != model::kNoFlameNode);
    const QRect box = renderer.boxRect(compute, size);
    // compute is main's first child (by name): from x = 0 to 8/11 of the width, row 2.
    CHECK(box.left() == 0);
    CHECK(box.right() + 1 == Approx(8.0 / 11 * size.width()).margin(1));
    CHECK(box.top() == views::FlameGraphRenderer::kHeaderHeightPx + 2 * box.height());
    CHECK(renderer.nodeAt(box.center(), size) == compute);
    // The picture agrees: the box is filled (not background), the area right of the
    // deepest frame is background.
    const QRgb inside = image.pixel(box.left() + 2, box.center().y());
    CHECK(inside != qRgb(255, 255, 255));
    CHECK(image.pixel(box.left() + 2, box.top() + 5 * box.height() + 5) == qRgb(255, 255, 255));
    const QRect matmul = renderer.boxRect(renderer.tree().find({"main", "compute", "matmul"}), size);
    CHECK(matmul.right() + 1 == Approx(5.0 / 11 * size.width()).margin(1));

    SECTION("flame orientation puts the root at the bottom")
    {
        renderer.setOrientation(views::FlameOrientation::Flame);
        CHECK(renderer.boxRect(model::FlameTree::kRoot, size).bottom() == size.height() - 1);
        CHECK(renderer.boxRect(compute, size).top() < renderer.boxRect(model::FlameTree::kRoot, size).top());
    }
    SECTION("search highlights matches and reports their share")
    {
        views::FlameGraphRequest searching;
        searching.search = "read";
        const QImage found = views::renderFlameGraphImage(reader, searching, size);
        save(found, "strata-flame-search.png");
        renderer.setSearch("read");
        CHECK(renderer.search().share == Approx(2.0 / 11));
        const QRect read = renderer.boxRect(renderer.tree().find({"main", "io", "read"}), size);
        CHECK(found.pixel(read.center()) == qRgb(0xe0, 0x3c, 0xc8));
        CHECK(found.pixel(box.left() + 2, box.center().y()) == qRgb(0xd4, 0xd4, 0xd4));
    }
}

TEST_CASE("flame widget: click zooms into a frame, the breadcrumb zooms back, callers table sorts", "[gui][flame]")
{
    test::TempDir dir;
    storage::StoreReader reader(foldedStore(dir));
    views::FlameGraphWidget widget;
    widget.setAttribute(Qt::WA_DontShowOnScreen);
    widget.resize(1200, 400);
    widget.show();
    QApplication::processEvents();
    widget.setTree(storage::buildFlameTree(reader, {}));
    const model::FlameNodeId compute = widget.renderer().tree().find({"main", "compute"});
    const QRect box = widget.renderer().boxRect(compute, widget.canvas()->size());
    REQUIRE(!box.isEmpty());
    QMouseEvent press(QEvent::MouseButtonPress, QPointF(box.center()), widget.canvas()->mapToGlobal(QPointF(box.center())),
                      Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(widget.canvas(), &press);
    CHECK(widget.renderer().zoom() == compute);
    CHECK(widget.selectedFunction() == "compute");
    // Zoomed: compute spans the width.
    const QRect zoomed = widget.renderer().boxRect(compute, widget.canvas()->size());
    CHECK(zoomed.left() == 0);
    CHECK(zoomed.width() == widget.canvas()->width());
    CHECK(widget.breadcrumb()->text().contains("compute"));
    // Callers/callees: caller main (8), callee matmul (5), sorted by weight.
    const QAbstractItemModel* model = widget.callersTable()->model();
    REQUIRE(model->rowCount() == 2);
    CHECK(model->index(0, 0).data().toString() == "caller");
    CHECK(model->index(0, 1).data().toString() == "main");
    CHECK(model->index(0, 2).data().toLongLong() == 8);
    CHECK(model->index(1, 2).data().toLongLong() == 5);
    widget.callersTable()->sortByColumn(2, Qt::AscendingOrder);
    CHECK(model->index(0, 2).data().toLongLong() == 5);
    // Breadcrumb link "all" (node 0) zooms back out.
    emit widget.breadcrumb()->linkActivated("0");
    CHECK(widget.renderer().zoom() == model::FlameTree::kRoot);
    QImage grabbed = widget.grab().toImage();
    save(grabbed, "strata-flame-widget.png");
    // Left heavy keeps node ids: main (11) before nothing else; compute before io.
    widget.setLeftHeavy(true);
    const QRect heavyCompute = widget.renderer().boxRect(compute, widget.canvas()->size());
    const QRect heavyIo = widget.renderer().boxRect(widget.renderer().tree().find({"main", "io"}), widget.canvas()->size());
    CHECK(heavyCompute.left() < heavyIo.left());
}

TEST_CASE("flame graph of the real perf trace and of a Kineto trace (interval nesting)", "[gui][flame][real]")
{
    test::TempDir dir;
    const std::filesystem::path perf = test::realTrace("public/perf-flamegraph/example-perf-stacks.txt.gz");
    if (!perf.empty() && std::filesystem::exists(perf)) {
        const auto store = dir / "perf.strata";
        {
            storage::StoreBuilder builder(store);
            storage::importPerfScript(perf, builder);
            builder.finish();
        }
        storage::StoreReader reader(store);
        const model::FlameTree tree = storage::buildFlameTree(reader, {});
        CHECK(tree.total() == 1315);  // README: 1315 samples, no period
        CHECK(tree.unit == "cycles samples");
        views::FlameGraphRequest request;
        request.orientation = views::FlameOrientation::Flame;
        const QImage image = views::renderFlameGraphImage(reader, request, QSize(1600, 900));
        save(image, "strata-flame-perf.png");
        CHECK(distinctColors(image) > 20);
    }
    const std::filesystem::path kineto = test::realTrace("h100/kineto_gpt_train_1gpu.json.gz");
    if (!kineto.empty() && std::filesystem::exists(kineto)) {
        const auto store = dir / "kineto.strata";
        {
            storage::StoreBuilder builder(store);
            storage::importChromeJson(kineto, builder);
            builder.finish();
        }
        storage::StoreReader reader(store);
        const model::FlameTree tree = storage::buildFlameTree(reader, {});
        CHECK(tree.unit == "ns");
        CHECK(tree.total() > 0);
        const QImage image = views::renderFlameGraphImage(reader, {}, QSize(1600, 900));
        save(image, "strata-flame-kineto.png");
        CHECK(distinctColors(image) > 20);
    }
}
