// A real Kineto trace (one H100, torch.profiler) rendered at whole-run, step and kernel
// scale: the pictures are not blank, and a known kernel is drawn where the store says.

#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "tests/support/temp_dir.h"
#include "views/color_palette.h"
#include "views/timeline_renderer.h"

#include <catch2/catch.hpp>

using namespace strata;

namespace {

double inkShare(const QImage& image, int left, int top)
{
    std::int64_t ink = 0, all = 0;
    for (int y = top; y < image.height(); y += 3) {
        for (int x = left; x < image.width(); x += 3) {
            ink += QColor(image.pixel(x, y)) != QColor(Qt::white);
            ++all;
        }
    }
    return static_cast<double>(ink) / static_cast<double>(all);
}

} // namespace

TEST_CASE("a real Kineto trace renders at run, step and kernel scale with kernels where the store says",
          "[gui][timeline][real]")
{
    const auto trace = test::realTrace("h100/kineto_gpt_train_1gpu.json.gz");
    if (trace.empty())
        return;  // the shared real-trace folder is absent
    test::TempDir dir;
    const auto path = dir / "gpt.strata";
    {
        storage::StoreBuilder builder(path);
        storage::importChromeJson(trace, builder);
        builder.finish();
    }
    storage::StoreReader store(path);
    const QSize size(1600, 1000);
    views::TimelineRenderer renderer(store);
    const views::TimelineLayout& layout = renderer.layout();

    // The longest kernel on a GPU stream, and the first ProfilerStep on a CPU thread.
    model::TrackId kernelTrack = model::kNoTrack;
    model::Interval kernel, step;
    for (model::TrackId t = 0; t < store.resources().size(); ++t) {
        const bool stream = store.resources().track(t).kind == model::ResourceKind::Stream;
        // Kernels only: the stream also carries gpu_user_annotation ranges (ProfilerStep#N).
        for (const model::Interval& e : store.intervals(t, store.span().startNs, store.span().endNs)) {
            if (stream && store.strings().text(e.category) == "kernel" && e.durationNs() > kernel.durationNs()) {
                kernel = e;
                kernelTrack = t;
            }
            if (step.durationNs() == 0 && store.strings().text(e.name).starts_with("ProfilerStep"))
                step = e;
        }
    }
    REQUIRE(kernelTrack != model::kNoTrack);
    REQUIRE(step.durationNs() > 0);
    const views::TimelineRow* row = layout.rowOf(kernelTrack);
    REQUIRE(row);

    const views::TimelineFrame defaults;
    const QImage run = views::renderTimelineImage(store, {}, size);
    CHECK(inkShare(run, defaults.labelWidthPx, defaults.rulerHeightPx) > 0.05);
    const QImage stepImage = views::renderTimelineImage(store, {step.startNs, step.endNs}, size);
    CHECK(inkShare(stepImage, defaults.labelWidthPx, defaults.rulerHeightPx) > 0.05);

    // Kernel scale: the kernel fills the middle of the window; its colour is at its centre.
    const model::TimeNs margin = kernel.durationNs() / 4;
    const model::TimeRange window{kernel.startNs - margin, kernel.endNs + margin};
    const QImage kernelImage = views::renderTimelineImage(store, window, size);
    kernelImage.save(QString::fromStdString((std::filesystem::temp_directory_path() / "strata-kernel.png").string()));
    views::TimelineFrame f = defaults;
    f.window = window;
    f.widthPx = size.width();
    f.heightPx = size.height();
    const int y = f.rowTop(*row) + kernel.depth * layout.laneHeightPx;
    REQUIRE(y < size.height());
    const views::Palette palette(store.strings(), store.allMeta());
    const QColor expected = palette.interval(kernel.name, kernel.category, kernel.role);
    // Its name is written over it: most, not all, of the lane's pixels have its colour.
    int same = 0, all = 0;
    for (int x = static_cast<int>(f.xOf(kernel.startNs)) + 1; x < f.xOf(kernel.endNs) - 1; ++x) {
        for (int dy = 0; dy < layout.laneHeightPx - 1; ++dy) {
            same += kernelImage.pixel(x, y + dy) == expected.rgb();
            ++all;
        }
    }
    CHECK(same > all / 2);
    // Just before it, on the same lane, is something else (a gap or another kernel).
    const int before = static_cast<int>(f.xOf(kernel.startNs)) - 2;
    CHECK(kernelImage.pixel(before, y + 3) != expected.rgb());
}
