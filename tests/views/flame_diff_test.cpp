// Differential flame graphs as users reach them: the flame dock's "Pin as baseline" and
// "Compare with store…", and `strata render --view flame --diff-window/--diff-store`.
// A window compared with itself is neutral everywhere; a frame whose count doubles grows
// (red) while its sibling shrinks (blue); the real perf trace's two halves differ both
// ways; bad arguments fail with one line.

#include "storage/import/stacks/folded_importer.h"
#include "storage/import/stacks/perf_script_importer.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "views/flame_panel.h"

#include <QApplication>

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>

using namespace strata;

namespace {

/// A store of folded stacks written from `text` (1 ns per count, lines in file order).
std::filesystem::path foldedStore(
    const test::TempDir& dir, const std::string& name, const std::string& text)
{
    const auto folded = dir / (name + ".folded");
    std::ofstream(folded) << text;
    const auto path = dir / (name + ".strata");
    storage::StoreBuilder builder(path);
    storage::importFolded(folded, builder);
    builder.finish();
    return path;
}

/// Baseline [0, 8): compute 4, io 4. Current [8, 20): compute 8, io 4.
constexpr const char* kGrowth = "main;compute 4\nmain;io 4\nmain;compute 8\nmain;io 4\n";

std::filesystem::path perfStore(const test::TempDir& dir)
{
    const auto perf = test::realTrace("public/perf-flamegraph/example-perf-stacks.txt.gz");
    if (perf.empty() || !std::filesystem::exists(perf))
        return {};
    const auto path = dir / "perf.strata";
    storage::StoreBuilder builder(path);
    storage::importPerfScript(perf, builder);
    builder.finish();
    return path;
}

bool allNeutral(const model::FlameDiff& diff)
{
    for (model::FlameNodeId i = 0; i < diff.tree.size(); ++i) {
        if (diff.change(i) != 0)
            return false;
    }
    return true;
}

double changeOf(const views::FlamePanel& panel, const std::vector<std::string>& path)
{
    const auto& diff = panel.graph()->renderer().diff();
    REQUIRE(diff);
    const model::FlameNodeId node = diff->tree.find(path);
    REQUIRE(node != model::kNoFlameNode);
    return diff->change(node);
}

bool reddish(QRgb c)
{
    return qRed(c) - qBlue(c) > 60 && qRed(c) - qGreen(c) > 60;
}
bool bluish(QRgb c)
{
    return qBlue(c) - qRed(c) > 60 && qBlue(c) - qGreen(c) > 60;
}

/// Red-ish and blue-ish pixels below the header (whose legend holds both colours).
std::pair<int, int> redAndBlue(const QImage& image)
{
    int red = 0, blue = 0;
    for (int y = views::FlameGraphRenderer::kHeaderHeightPx; y < image.height(); y += 2) {
        for (int x = 0; x < image.width(); x += 2) {
            red += reddish(image.pixel(x, y));
            blue += bluish(image.pixel(x, y));
        }
    }
    return { red, blue };
}

std::string firstLine(const std::string& text)
{
    return text.substr(0, text.find('\n'));
}

test::CommandResult renderFlame(
    const std::filesystem::path& store, const std::string& png, std::vector<std::string> extra)
{
    std::vector<std::string> args { "render", store.string(), "-o", png, "--view", "flame" };
    args.insert(args.end(), extra.begin(), extra.end());
    return test::runStrata(args);
}

}  // namespace

TEST_CASE("flame dock: a pinned window compared with itself is neutral, with a later window is not",
    "[gui][flame][diff]") {
    test::TempDir dir;
    const auto path = perfStore(dir);
    if (path.empty())
        return;
    storage::StoreReader store(path);
    views::FlamePanel panel(store);
    panel.setScope({ 0, 5'000'000'000 }, {});
    panel.pinBaseline();
    panel.rebuildAndWait();
    CHECK(panel.baselineText() == "window 0ns – 5.000s");
    const auto& diff = panel.graph()->renderer().diff();
    REQUIRE(diff);
    CHECK(diff->tree.size() > 100);
    CHECK(allNeutral(*diff));
    CHECK(diff->before == diff->after);

    panel.setScope({ 5'000'000'000, 10'000'000'000 }, {});
    panel.rebuildAndWait();
    REQUIRE(panel.graph()->renderer().diff());
    CHECK(!allNeutral(*panel.graph()->renderer().diff()));
    CHECK(panel.graph()->renderer().diff()->before[model::FlameTree::kRoot]
        == 637);  // the pinned half
    CHECK(panel.graph()->renderer().diff()->after[model::FlameTree::kRoot] == 678);

    panel.clearBaseline();
    panel.rebuildAndWait();
    CHECK(!panel.graph()->renderer().diff());
    CHECK(panel.baselineText().isEmpty());
    CHECK(panel.graph()->renderer().tree().total() == 678);
}

TEST_CASE("flame dock: the frame that doubled is red, its sibling blue, their caller neutral",
    "[gui][flame][diff]") {
    test::TempDir dir;
    storage::StoreReader store(foldedStore(dir, "growth", kGrowth));
    views::FlamePanel panel(store);
    panel.setAttribute(Qt::WA_DontShowOnScreen);
    panel.resize(1200, 500);
    panel.show();
    QApplication::processEvents();
    panel.setScope({ 0, 8 }, {});
    panel.pinBaseline();
    panel.setScope({ 8, 20 }, {});
    panel.rebuildAndWait();
    // Shares: compute 4/8 -> 8/12, io 4/8 -> 4/12, main 1 -> 1.
    CHECK(changeOf(panel, { "main", "compute" }) == Approx(1.0 / 6));
    CHECK(changeOf(panel, { "main", "io" }) == Approx(-1.0 / 6));
    CHECK(changeOf(panel, { "main" }) == 0);

    const views::FlameGraphRenderer& renderer = panel.graph()->renderer();
    const QImage image = panel.graph()->canvas()->grab().toImage();
    image.save(QString::fromStdString(
        (std::filesystem::temp_directory_path() / "strata-flame-diff-panel.png").string()));
    panel.grab().save(QString::fromStdString(
        (std::filesystem::temp_directory_path() / "strata-flame-diff-dock.png").string()));
    const auto pixelIn = [&](const std::vector<std::string>& path) {
        const QRect box =
            renderer.boxRect(renderer.tree().find(path), panel.graph()->canvas()->size());
        REQUIRE(!box.isEmpty());
        return image.pixel(box.left() + 1, box.top() + 1);
    };
    CHECK(reddish(pixelIn({ "main", "compute" })));
    CHECK(bluish(pixelIn({ "main", "io" })));
    CHECK(!reddish(pixelIn({ "main" })));
    CHECK(!bluish(pixelIn({ "main" })));
}

TEST_CASE("flame dock: compare with another store, whole run or the same relative window",
    "[gui][flame][diff]") {
    test::TempDir dir;
    const auto base = foldedStore(dir, "base", "main;compute 4\nmain;io 4\n");
    storage::StoreReader store(foldedStore(dir, "grown", "main;compute 8\nmain;io 4\n"));
    views::FlamePanel panel(store);
    // The folded stores name their process after their file: no track path matches, so
    // the other store is read whole (every track).
    const std::vector<model::TrackId> allTracks { 0, 1 };
    panel.setScope({ 0, 12 }, allTracks);
    panel.compareWithStore(base, true);
    panel.rebuildAndWait();
    CHECK(panel.baselineText() == "base.strata, whole run");
    CHECK(changeOf(panel, { "main", "compute" }) == Approx(1.0 / 6));
    CHECK(changeOf(panel, { "main", "io" }) == Approx(-1.0 / 6));

    // The same window [0, 8) of both: compute 8 only, against compute 4 and io 4.
    panel.setScope({ 0, 8 }, allTracks);
    panel.compareWithStore(base, false);
    panel.rebuildAndWait();
    CHECK(panel.baselineText() == "base.strata, window 0ns – 8ns");
    CHECK(changeOf(panel, { "main", "compute" }) == Approx(0.5));
    CHECK(changeOf(panel, { "main", "io" }) == Approx(-0.5));

    // A store compared with a copy of itself is neutral; a missing store is refused and
    // leaves the baseline as it was.
    panel.compareWithStore(store.path(), false);
    panel.rebuildAndWait();
    CHECK(allNeutral(*panel.graph()->renderer().diff()));
    CHECK_THROWS_AS(panel.compareWithStore(dir / "missing.strata", true), storage::StoreError);
    CHECK(panel.baselineText() == "grown.strata, window 0ns – 8ns");
}

TEST_CASE("sameTracksIn matches tracks of two stores by resource path", "[gui][flame][diff]") {
    test::TempDir dir;
    const auto make = [&](const std::string& name, const std::vector<std::string>& threads) {
        const auto path = dir / name;
        storage::StoreBuilder b(path);
        const model::TrackId rank =
            b.addTrack(model::kNoTrack, model::ResourceKind::Process, "rank 0");
        for (const std::string& t : threads)
            b.addInterval(b.addTrack(rank, model::ResourceKind::Thread, t),
                { 0, 10, b.intern("x"), {}, model::kAutoDepth });
        b.finish();
        return path;
    };
    storage::StoreReader a(make("a.strata", { "main", "worker" }));
    storage::StoreReader b(make("b.strata", { "io", "worker", "main" }));
    CHECK(storage::sameTracksIn(a, { 1, 2 }, b) == std::vector<model::TrackId> { 3, 2 });
    CHECK(storage::sameTracksIn(a, {}, b).empty());
    CHECK(storage::sameTracksIn(b, { 1 }, a).empty());  // "io" is not in a: every track
}

TEST_CASE("render --view flame --diff-window/--diff-store: neutral against itself, red and blue "
          "where windows differ",
    "[gui][flame][diff][cli]") {
    test::TempDir dir;
    const auto perf = perfStore(dir);
    if (perf.empty())
        return;
    const auto png = (dir / "diff.png").string();
    const auto render = [&](std::vector<std::string> extra) {
        extra.insert(extra.end(), { "--size", "1200x600" });
        REQUIRE(renderFlame(perf, png, extra).exitCode == 0);
        QImage image(QString::fromStdString(png));
        REQUIRE(image.width() == 1200);
        return image;
    };
    const auto [selfRed, selfBlue] =
        redAndBlue(render({ "--window", "0:5s", "--diff-window", "0:5s" }));
    CHECK(selfRed == 0);
    CHECK(selfBlue == 0);
    const auto [red, blue] = redAndBlue(render({ "--window", "5s:10s", "--diff-window", "0:5s" }));
    CHECK(red > 500);
    CHECK(blue > 500);
    const auto [storeRed, storeBlue] = redAndBlue(render({ "--diff-store", perf.string() }));
    CHECK(storeRed == 0);
    CHECK(storeBlue == 0);

    // Synthetic growth through --diff-store: compute doubled (red), io shrank (blue).
    const auto base = foldedStore(dir, "base", "main;compute 4\nmain;io 4\n");
    const auto grown = foldedStore(dir, "grown", "main;compute 8\nmain;io 4\n");
    REQUIRE(renderFlame(grown, png, { "--size", "800x300", "--diff-store", base.string() }).exitCode
        == 0);
    const QImage image(QString::fromStdString(png));
    // Row 2 (main's children): compute spans the left 2/3, io the right 1/3.
    const int rowHeight = views::FlameGraphRenderer::kMaxRowHeightPx;
    const int y = views::FlameGraphRenderer::kHeaderHeightPx + 2 * rowHeight + 2;
    CHECK(reddish(image.pixel(2, y)));
    CHECK(bluish(image.pixel(800 * 2 / 3 + 2, y)));
}

TEST_CASE("render --diff-window/--diff-store: bad arguments fail with one line",
    "[gui][flame][diff][cli]") {
    test::TempDir dir;
    const auto store = foldedStore(dir, "growth", kGrowth);
    const auto png = (dir / "x.png").string();
    const auto run = [&](std::vector<std::string> extra) {
        return renderFlame(store, png, extra);
    };
    // Usage mistakes: exit 2, the first line names the option (the usage text follows).
    const auto malformed = run({ "--diff-window", "5:1" });
    CHECK(malformed.exitCode == 2);
    CHECK(firstLine(malformed.err)
        == "strata: --diff-window expects T0:T1 with T0 < T1, e.g. 10ms:12.5ms (got '5:1')");
    const auto both = run({ "--diff-window", "0:4", "--diff-store", store.string() });
    CHECK(both.exitCode == 2);
    CHECK(firstLine(both.err)
        == "strata: --diff-window and --diff-store are two baselines: give one");
    const auto timeline =
        test::runStrata({ "render", store.string(), "-o", png, "--diff-window", "0:4" });
    CHECK(timeline.exitCode == 2);
    CHECK(firstLine(timeline.err) == "strata: --diff-window and --diff-store need --view flame");
    // A baseline store that is not there is bad input: exit 1, one line naming it.
    const auto missing = run({ "--diff-store", (dir / "missing.strata").string() });
    CHECK(missing.exitCode == 1);
    CHECK_THAT(missing.err, Catch::Contains("missing.strata"));
    CHECK(std::count(missing.err.begin(), missing.err.end(), '\n') == 1);
    CHECK(!std::filesystem::exists(png));
}
