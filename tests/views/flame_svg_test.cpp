// The flame graph's SVG is vector (issue 14, item 5): every frame drawn is a shape of its
// own and its name is text (searchable, as in FlameGraph's SVG), never a bitmap, both as
// `strata render --view flame` paints it and as the GUI's canvas exports it.

#include "storage/import/stacks/folded_importer.h"
#include "storage/import/stacks/perf_script_importer.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "views/flame_graph_renderer.h"
#include "views/flame_graph_widget.h"
#include "views/picture_export.h"

#include <QApplication>
#include <QFile>
#include <QSvgRenderer>
#include <QXmlStreamReader>

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

using namespace strata;

namespace {

struct SvgContent
{
    int images = 0;
    int shapes = 0;  ///< rect and path elements
    std::vector<std::string> texts;
};

SvgContent readSvg(const QString& path)
{
    QFile file(path);
    REQUIRE(file.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&file);
    SvgContent out;
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement)
            continue;
        if (xml.name() == QLatin1String("image"))
            ++out.images;
        else if (xml.name() == QLatin1String("rect") || xml.name() == QLatin1String("path"))
            ++out.shapes;
        else if (xml.name() == QLatin1String("text"))
            out.texts.push_back(xml.readElementText().toStdString());
    }
    REQUIRE_FALSE(xml.hasError());
    return out;
}

/// Checks the SVG at `path` holds the flame graph `renderer` draws at `size`: no image,
/// a shape per drawn frame, and the frames' names as text (whole where they fit, cut
/// with an ellipsis where not).
void checkVectorFlame(const QString& path, const views::FlameGraphRenderer& renderer, QSize size)
{
    const SvgContent svg = readSvg(path);
    CHECK(svg.images == 0);
    const model::FlameTree& tree = renderer.tree();
    std::set<std::string> names;
    int drawn = 0;
    std::vector<model::FlameNodeId> wide;
    for (model::FlameNodeId id = 0; id < tree.size(); ++id) {
        names.insert(tree.node(id).name);
        const QRect box = renderer.boxRect(id, size);
        drawn += !box.isEmpty();
        if (box.width() >= 300)
            wide.push_back(id);
    }
    REQUIRE(drawn > 3);
    CHECK(svg.shapes >= drawn);
    const std::set<std::string> texts(svg.texts.begin(), svg.texts.end());
    int whole = 0;
    for (const model::FlameNodeId id : wide)
        whole += texts.count(tree.node(id).name) != 0;
    CHECK(whole * 2 >= static_cast<int>(wide.size()));
    REQUIRE(!wide.empty());
    // Every text is the header or a frame's name, whole or cut.
    int frameTexts = 0;
    for (const std::string& t : svg.texts) {
        if (t.rfind("total ", 0) == 0)
            continue;
        const std::string cut =
            t.size() >= 3 && t.compare(t.size() - 3, 3, "…") == 0 ? t.substr(0, t.size() - 3) : t;
        const bool isName = std::any_of(
            names.begin(), names.end(), [&](const std::string& n) { return n.rfind(cut, 0) == 0; });
        CHECK(isName);
        frameTexts += isName;
    }
    CHECK(frameTexts >= static_cast<int>(wide.size()));
}

/// The SVG as a PNG beside it, to look at.
void rasterize(const QString& svgPath)
{
    QSvgRenderer svg(svgPath);
    REQUIRE(svg.isValid());
    QImage image(svg.defaultSize(), QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    svg.render(&painter);
    painter.end();
    image.save(QString(svgPath).replace(QStringLiteral(".svg"), QStringLiteral(".svg.png")));
}

QString tempPath(const std::string& name)
{
    return QString::fromStdString((std::filesystem::temp_directory_path() / name).string());
}

}  // namespace

TEST_CASE("the flame graph's SVG has a shape and a text per frame, no bitmap (issue 14)",
    "[gui][flame]") {
    test::TempDir dir;
    std::vector<std::pair<std::filesystem::path, std::string>> stores;
    {
        const auto path = dir / "small.strata";
        storage::StoreBuilder builder(path);
        storage::importFolded(
            std::filesystem::path(STRATA_TEST_DATA_DIR) / "stacks" / "small.folded", builder);
        builder.finish();
        stores.emplace_back(path, "small");
    }
    const auto perf = test::realTrace("public/perf-flamegraph/example-perf-stacks.txt.gz");
    if (!perf.empty() && std::filesystem::exists(perf)) {
        const auto path = dir / "perf.strata";
        storage::StoreBuilder builder(path);
        storage::importPerfScript(perf, builder);
        builder.finish();
        stores.emplace_back(path, "perf");
    }
    const QSize size(1400, 700);
    for (const auto& [path, name] : stores) {
        INFO(name);
        storage::StoreReader reader(path);

        // As `strata render --view flame -o f.svg` paints it.
        views::FlameGraphRenderer renderer = views::flameGraphFor(reader, {});
        const QString rendered = tempPath("strata-flame-" + name + ".svg");
        views::savePicture(rendered, size, [&](QPainter& p) { renderer.paint(p, size); });
        checkVectorFlame(rendered, renderer, size);
        rasterize(rendered);

        // As File > Export image writes the GUI's flame graph.
        views::FlameGraphWidget widget;
        widget.setAttribute(Qt::WA_DontShowOnScreen);
        widget.resize(size + QSize(400, 100));
        widget.show();
        QApplication::processEvents();
        widget.setTree(storage::buildFlameTree(reader, {}));
        QApplication::processEvents();
        const QString exported = tempPath("strata-flame-widget-" + name + ".svg");
        views::saveWidgetPicture(exported, *widget.canvas());
        checkVectorFlame(exported, widget.renderer(), widget.canvas()->size());
        rasterize(exported);
    }
}
