#include "app/allocator_tuning.h"
#include "app/cli.h"
#include "app/commands.h"
#include "app/main_window.h"
#include "app/progress_bar.h"
#include "app/trace_opener.h"
#include "storage/store_builder.h"
#include "storage/synthetic_trace.h"
#include "views/timeline_renderer.h"

#include <QApplication>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace strata::app {

namespace {

/// The built-in demo: a synthetic 4-rank training run, made once into the cache folder.
std::filesystem::path demoStore()
{
    const std::filesystem::path path = cacheFolder() / ("demo-" STRATA_VERSION ".strata");
    if (!std::filesystem::exists(path)) {
        std::filesystem::create_directories(path.parent_path());
        ProgressBar bar("building the demo trace", "events");
        storage::StoreBuilder builder(path);
        storage::SynthOptions options;
        options.events = 400000;
        options.ranks = 4;
        storage::generateSyntheticTrace(options, builder, bar.callback());
        builder.finish();
    }
    return path;
}

bool haveDisplay()
{
    const char* platform = std::getenv("QT_QPA_PLATFORM");
    if (platform && *platform)
        return std::string_view(platform) != "offscreen" && std::string_view(platform) != "minimal";
    const char* x11 = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    return (x11 && *x11) || (wayland && *wayland);
}

} // namespace

int guiCommand(const Args& args, int argc, char** argv)
{
    if (args.size() > 1)
        throw UsageError{"the GUI takes at most one FILE"};
    const std::filesystem::path path = args.empty() ? demoStore() : std::filesystem::path(args[0]);
    keepLargeAllocationsInTheHeap();
    auto store = std::make_unique<storage::StoreReader>(path);

    if (!haveDisplay()) {
        // No display: render what the window would show and print the store's figures.
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
        QApplication app(argc, argv);
        const std::filesystem::path png = std::filesystem::current_path() / (path.stem().string() + "-timeline.png");
        const QImage image = views::renderTimelineImage(*store, {}, QSize(1600, 900));
        if (!image.save(QString::fromStdString(png.string())))
            throw std::runtime_error("cannot write " + png.string());
        std::printf("no display: rendered %s to %s\n\n", path.c_str(), png.c_str());
        return infoCommand({path.string()});
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Strata"));
    QApplication::setOrganizationName(QStringLiteral("Strata"));
    MainWindow window(std::move(store));
    window.show();
    return QApplication::exec();
}

} // namespace strata::app
