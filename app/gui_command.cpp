#include "app/allocator_tuning.h"
#include "app/cli.h"
#include "app/commands.h"
#include "app/input_store.h"
#include "app/main_window.h"
#include "app/progress_bar.h"
#include "app/trace_opener.h"
#include "storage/store/store_builder.h"
#include "storage/synth/synthetic_trace.h"
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
    const std::vector<std::filesystem::path> inputs(args.begin(), args.end());
    keepLargeAllocationsInTheHeap();

    if (!haveDisplay()) {
        // No display: the same opening (ingest with the terminal bars), then render what
        // the window would show and print the store's figures.
        std::filesystem::path path;
        if (inputs.empty()) {
            path = demoStore();
        } else {
            IngestProgressBars bars;
            const InputStore opened = storeForInputs(inputs, bars.callback());
            bars.finish();
            if (opened.ingest) {
                for (const std::string& warning : opened.ingest->warnings)
                    std::fprintf(stderr, "%s\n", warning.c_str());
                std::fprintf(stderr, "%s\n", summaryLine(*opened.request, *opened.ingest).c_str());
            }
            path = opened.store;
        }
        storage::StoreReader store(path);
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
        QApplication app(argc, argv);
        const std::filesystem::path png = std::filesystem::current_path() / (path.stem().string() + "-timeline.png");
        const QImage image = views::renderTimelineImage(store, {}, QSize(1600, 900));
        if (!image.save(QString::fromStdString(png.string())))
            throw std::runtime_error("cannot write " + png.string());
        std::printf("no display: rendered %s to %s\n\n", path.c_str(), png.c_str());
        return infoCommand({path.string()});
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Strata"));
    QApplication::setOrganizationName(QStringLiteral("Strata"));
    std::filesystem::path path;
    if (inputs.empty()) {
        path = demoStore();
    } else {
        // A bad file has been named in a message box by now; a cancel just ends.
        QStringList paths;
        for (const std::string& arg : args)
            paths << QString::fromStdString(arg);
        const auto opened = storeForPaths(paths, nullptr);
        if (!opened)
            return kExitBadInput;
        path = *opened;
    }
    MainWindow window(std::make_unique<storage::StoreReader>(path));
    window.show();
    return QApplication::exec();
}

} // namespace strata::app
