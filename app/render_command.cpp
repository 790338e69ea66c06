// `strata render STORE -o OUT.png|OUT.svg [--view V] [--window T0:T1] [--tracks REGEX]
// [--size WxH] [--color-by name|category|role|kernel-metric=METRIC] [--counters REGEX]
// [--scale 2] [--diff-window C:D | --diff-store OTHER.strata]`: the picture the GUI would
// show, rendered offscreen. Views: timeline (the default), flame (the call tree of the
// window and tracks; with --diff-window or --diff-store, differential against window C:D
// of this store or against the other store's same window, or its whole run), metrics (the
// Efficiency panel: whole run beside --window), counters (the counter charts of the window;
// --counters picks them by name or resource path, else the first few), window (the main
// window with its docks).

#include "app/arg_parser.h"
#include "app/commands.h"
#include "app/main_window.h"
#include "app/output_guard.h"
#include "views/analyzer_panel.h"
#include "views/counter_charts_panel.h"
#include "views/efficiency_panel.h"
#include "views/flame_graph_renderer.h"
#include "views/kernel_metric_colors.h"
#include "views/on_screen.h"
#include "views/overview_strip.h"
#include "views/picture_export.h"
#include "views/scaling_table_widget.h"
#include "views/timeline_widget.h"
#include "views/variability_panel.h"

#include <QApplication>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>

namespace strata::app {

namespace {

QSize parseSize(const std::string& text)
{
    int w = 0, h = 0;
    char x = 0;
    if (std::sscanf(text.c_str(), "%d%c%d", &w, &x, &h) != 3 || (x != 'x' && x != 'X') || w < 64 || h < 64
        || w > 16384 || h > 16384)
        throw UsageError{"--size expects WxH with 64..16384 pixels each, e.g. 1920x1080 (got '" + text + "')"};
    return {w, h};
}

views::ColorBy parseColorBy(const std::string& text)
{
    if (text == "name")
        return views::ColorBy::Name;
    if (text == "category")
        return views::ColorBy::Category;
    if (text == "role")
        return views::ColorBy::Role;
    if (text.starts_with("kernel-metric="))
        return views::ColorBy::KernelMetric;
    throw UsageError{"--color-by expects name, category, role or kernel-metric=METRIC (got '" + text + "')"};
}

/// The counters whose name or resource path matches `regex` (all of them when absent).
std::vector<model::TrackId> chosenCounters(const storage::StoreReader& store, const std::optional<std::string>& regex)
{
    auto tracks = views::CounterChartsPanel::counterTracks(store);
    if (tracks.empty())
        throw UsageError{"--view counters: the store has no counter track"};
    if (!regex)
        return {tracks.begin(), tracks.begin() + std::min<std::ptrdiff_t>(views::CounterChartsPanel::kDefaultCharts, std::ssize(tracks))};
    std::regex re;
    try {
        re = std::regex(*regex);
    } catch (const std::regex_error& e) {
        throw UsageError{"--counters: bad regex '" + *regex + "': " + e.what()};
    }
    std::erase_if(tracks, [&](model::TrackId t) { return !std::regex_search(store.resources().path(t), re); });
    if (tracks.empty())
        throw UsageError{"--counters: no counter track matches '" + *regex + "'"};
    return tracks;
}

/// The tracks whose resource path matches `regex` (every track: empty).
std::vector<model::TrackId> tracksMatching(const storage::StoreReader& store, const std::string& regex)
{
    std::vector<model::TrackId> tracks;
    if (regex.empty())
        return tracks;
    const std::regex re(regex);
    for (model::TrackId t = 0; t < store.resources().size(); ++t) {
        if (std::regex_search(store.resources().path(t), re))
            tracks.push_back(t);
    }
    if (tracks.empty())
        throw UsageError{"--tracks '" + regex + "' matches no track of " + store.path().filename().string()};
    return tracks;
}

model::TimeRange parseWindow(const std::string& option, const std::string& text)
{
    const auto window = model::parseTimeRange(text);
    if (!window)
        throw UsageError{option + " expects T0:T1 with T0 < T1, e.g. 10ms:12.5ms (got '" + text + "')"};
    return *window;
}

/// `--view metrics` of several stores: the POP scaling table across the runs (issue 19).
int renderScalingTable(const std::vector<std::string>& stores, const std::string& output,
    QSize size, double scale, int argc, char** argv)
{
    checkOutputSparesInputs(output, { stores.begin(), stores.end() });
    std::vector<storage::ScalingRun> runs;  // before Qt starts: a bad store fails at once
    for (const std::string& path : stores) {
        storage::StoreReader store(path);
        runs.push_back(storage::computeScalingRun(store, path));
    }
    if (!std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    QApplication app(argc, argv);
    views::ScalingTableWidget widget;
    widget.setTable(storage::scalingTableOf(runs), runs);
    widget.resize(size);
    widget.setAttribute(Qt::WA_DontShowOnScreen);
    widget.show();
    QApplication::processEvents();
    views::saveWidgetPicture(QString::fromStdString(output), widget, scale);
    std::printf("rendered %s (%dx%d, view metrics, %zu runs)\n", output.c_str(), size.width(),
        size.height(), stores.size());
    return kExitOk;
}

} // namespace

int renderCommand(const Args& args, int argc, char** argv)
{
    ArgParser p(args,
        { "-o", "--output", "--view", "--window", "--tracks", "--size", "--color-by", "--scale",
            "--counters", "--diff-window", "--diff-store", "--names" },
        {});
    const auto output = p.value("-o") ? p.value("-o") : p.value("--output");
    const std::string view = p.valueOr("--view", "timeline");
    if (p.positional().empty() || (p.positional().size() > 1 && view != "metrics") || !output)
        throw UsageError {
            "render needs one STORE (several with --view metrics) and -o OUT.png|OUT.svg"
        };
    const QSize size = parseSize(p.valueOr("--size", "1600x900"));
    const std::string colorByText = p.valueOr("--color-by", "name");
    const views::ColorBy colorBy = parseColorBy(colorByText);
    const double scale = static_cast<double>(p.integer("--scale", 1, 1, 4));
    std::optional<model::TimeRange> window;
    if (const auto w = p.value("--window"))
        window = parseWindow("--window", *w);
    const auto diffWindowText = p.value("--diff-window");
    const auto diffStore = p.value("--diff-store");
    if (diffWindowText && diffStore)
        throw UsageError{"--diff-window and --diff-store are two baselines: give one"};
    if ((diffWindowText || diffStore) && view != "flame")
        throw UsageError{"--diff-window and --diff-store need --view flame"};
    std::optional<model::TimeRange> diffWindow;
    if (diffWindowText)
        diffWindow = parseWindow("--diff-window", *diffWindowText);
    views::LayoutOptions layout;
    if (const auto tracks = p.value("--tracks")) {
        layout.filter = *tracks;
        layout.filterIsRegex = true;
        try {
            std::regex check(*tracks);
        } catch (const std::regex_error& e) {
            throw UsageError{"--tracks: bad regex '" + *tracks + "': " + e.what()};
        }
    }

    if (p.positional().size() > 1)
        return renderScalingTable(p.positional(), *output, size, scale, argc, argv);

    // The picture is written over -o as is: never over the store it shows.
    std::vector<std::filesystem::path> inputs { p.positional()[0] };
    if (diffStore)
        inputs.emplace_back(*diffStore);
    checkOutputSparesInputs(*output, inputs);

    // The baseline store is opened first, so that a missing one fails before Qt starts.
    std::unique_ptr<storage::StoreReader> other;
    if (diffStore)
        other = std::make_unique<storage::StoreReader>(*diffStore);

    if (!std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    QApplication app(argc, argv);
    auto store = std::make_unique<storage::StoreReader>(p.positional()[0]);
    const QString out = QString::fromStdString(*output);
    std::shared_ptr<const views::KernelMetricColors> kernelMetric;
    if (colorBy == views::ColorBy::KernelMetric) {
        const std::string metric = colorByText.substr(colorByText.find('=') + 1);
        kernelMetric = views::KernelMetricColors::load(*store, metric);
        if (!kernelMetric)
            throw UsageError{"--color-by: the store has no per-kernel metric '" + metric + "'"};
    }
    if (view == "timeline") {
        views::TimelineRenderer renderer(*store);
        renderer.setLayoutOptions(layout);
        renderer.palette().setMode(colorBy);
        renderer.palette().setKernelMetric(kernelMetric);
        views::TimelineFrame frame;
        frame.window = window.value_or(views::fittedWindow(*store));
        frame.widthPx = size.width();
        frame.heightPx = size.height();
        views::savePicture(out, size, [&](QPainter& painter) { renderer.paint(painter, frame); }, scale);
    } else if (view == "flame") {
        views::FlameGraphRequest request;
        if (window) {
            request.source.startNs = window->startNs;
            request.source.endNs = window->endNs;
        }
        request.source.tracks = tracksMatching(*store, layout.filter);
        if (diffWindow) {
            request.baseline = request.source;
            request.baseline->startNs = diffWindow->startNs;
            request.baseline->endNs = diffWindow->endNs;
            request.baselineLabel = QStringLiteral("window %1 – %2")
                                        .arg(QString::fromStdString(model::formatDuration(diffWindow->startNs)),
                                             QString::fromStdString(model::formatDuration(diffWindow->endNs)));
        } else if (other) {
            request.baseline = request.source;
            request.baseline->tracks = tracksMatching(*other, layout.filter);
            request.baselineStore = other.get();
            request.baselineLabel = QString::fromStdString(std::filesystem::path(*diffStore).filename().string())
                                    + (window ? QStringLiteral(", same window") : QStringLiteral(", whole run"));
        }
        // Painted straight into the output (not through an image): an SVG gets a
        // rectangle and a text per frame.
        views::FlameGraphRenderer renderer = views::flameGraphFor(*store, request);
        views::savePicture(
            out, size, [&](QPainter& painter) { renderer.paint(painter, size); }, scale);
    } else if (view == "window") {
        MainWindow main(std::move(store));
        main.resize(size);
        views::TimelineWidget& timeline = *main.timeline();
        if (window)
            timeline.setWindow(*window);
        timeline.setColorBy(colorBy);
        if (kernelMetric) {
            timeline.setKernelMetric(kernelMetric);
            if (main.counters())
                main.counters()->setKernelMetric(kernelMetric);
        }
        if (!layout.filter.empty())
            timeline.setTrackFilter(QString::fromStdString(layout.filter));
        main.show();
        QApplication::processEvents();
        timeline.waitForData();
        // Docks tabbed away compute nothing until shown, and are not in the picture.
        if (views::onScreen(*main.efficiency()))
            main.efficiency()->waitForReports();
        if (views::onScreen(*main.analyzer()))
            main.analyzer()->waitForProfile();
        if (views::onScreen(*main.variability()))
            main.variability()->waitForReport();
        main.overview()->grabStrip();
        if (main.counters())
            main.counters()->waitForData();
        QApplication::processEvents();
        views::saveWidgetPicture(out, main, scale);
    } else if (view == "metrics") {
        views::EfficiencyPanel panel(*store);
        panel.resize(size);
        if (window)
            panel.setWindow(*window);
        panel.show();
        panel.waitForReports();
        QApplication::processEvents();
        views::saveWidgetPicture(out, panel, scale);
    } else if (view == "variability") {
        views::VariabilityPanel panel(*store);
        panel.resize(size);
        if (window)
            panel.setWindow(*window);
        panel.setNamesRegex(p.valueOr("--names", ""));
        panel.show();
        panel.waitForReport();
        QApplication::processEvents();
        views::saveWidgetPicture(out, panel, scale);
    } else if (view == "counters") {
        views::CounterChartsPanel panel(*store);
        panel.setCounters(chosenCounters(*store, p.value("--counters")));
        panel.setKernelMetric(kernelMetric);
        panel.resize(size);
        panel.setWindow(window.value_or(views::fittedWindow(*store)));
        panel.show();
        QApplication::processEvents();
        panel.waitForData();
        QApplication::processEvents();
        views::saveWidgetPicture(out, panel, scale);
    } else {
        throw UsageError {
            "--view expects timeline, flame, metrics, variability, counters or window (got '" + view
            + "')"
        };
    }
    std::printf("rendered %s (%dx%d, view %s)\n", output->c_str(), size.width(), size.height(), view.c_str());
    return kExitOk;
}

} // namespace strata::app
