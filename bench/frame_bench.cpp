#include "bench/frame_bench.h"

#include "app/allocator_tuning.h"
#include "bench/bench_support.h"
#include "views/timeline_renderer.h"

#include <QApplication>
#include <QFontMetrics>

#include <cstdlib>

namespace strata::bench {

std::vector<double> measureFrames(const std::filesystem::path& path, int frames)
{
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
    int argc = 1;
    char name[] = "strata-bench";
    char* argv[] = {name, nullptr};
    QApplication app(argc, argv);
    app::keepLargeAllocationsInTheHeap();  // as the GUI does

    QImage image(1920, 1080, QImage::Format_RGB32);
    // The font database loads on the process's first text (~30 M instructions): in the
    // GUI its window has drawn text before any store opens, so it is not the store's.
    QFontMetrics(QApplication::font()).height();
    const auto openStart = Clock::now();
    storage::StoreReader store(path);
    const double readerMs = msSince(openStart);
    views::TimelineRenderer renderer(store);
    views::TimelineFrame frame;
    frame.window = views::fittedWindow(store);
    {
        QPainter painter(&image);
        renderer.paint(painter, frame);
    }
    const double openMs = msSince(openStart);

    std::vector<double> total, query, paint;
    std::FILE* log = stepLog();
    if (log)
        std::fprintf(log,
            "open_frame %.3f reader %.3f query %.3f paint %.3f tiles_read %llu index_reads %llu\n",
            openMs, readerMs, renderer.lastTimings().queryMs, renderer.lastTimings().paintMs,
            static_cast<unsigned long long>(store.tileReads()),
            static_cast<unsigned long long>(store.indexReads()));
    int step = 0;
    for (const model::TimeRange& w : viewportSequence(store.span(), frames)) {
        frame.window = w;
        const std::uint64_t tilesBefore = store.tileReads();
        const auto start = Clock::now();
        QPainter painter(&image);
        renderer.paint(painter, frame);
        total.push_back(msSince(start));
        query.push_back(renderer.lastTimings().queryMs);
        paint.push_back(renderer.lastTimings().paintMs);
        if (log)
            std::fprintf(log,
                "frame %d start %lld width %lld total %.3f query %.3f paint %.3f tiles_read %llu\n",
                step, static_cast<long long>(w.startNs), static_cast<long long>(w.durationNs()),
                total.back(), query.back(), paint.back(),
                static_cast<unsigned long long>(store.tileReads() - tilesBefore));
        ++step;
    }
    return {openMs, percentile(total, 0.5), percentile(total, 0.99), percentile(query, 0.99), percentile(paint, 0.99),
            peakRssMb()};
}

} // namespace strata::bench
