#include "app/trace_opener.h"

#include "app/ingest_job.h"
#include "storage/format_detect.h"
#include "storage/input_error.h"
#include "storage/store_reader.h"

#include <QApplication>
#include <QMessageBox>
#include <QProgressDialog>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace strata::app {

std::filesystem::path cacheFolder()
{
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    const std::filesystem::path base = xdg && *xdg ? std::filesystem::path(xdg)
                                       : home      ? std::filesystem::path(home) / ".cache"
                                                   : std::filesystem::temp_directory_path();
    const std::filesystem::path folder = base / "strata";
    std::filesystem::create_directories(folder);
    return folder;
}

std::filesystem::path storePathFor(const std::vector<std::filesystem::path>& inputs)
{
    const std::filesystem::path& first = inputs.front();
    const std::filesystem::path folder = std::filesystem::absolute(first).parent_path();
    std::string name = first.filename().string() + (inputs.size() > 1 ? "+" + std::to_string(inputs.size() - 1) : "")
                       + ".strata";
    if (::access(folder.c_str(), W_OK) == 0)
        return folder / name;
    // Read-only folder: a cache entry named after the signature, so each set of files
    // gets its own store.
    const std::size_t hash = std::hash<std::string>()(sourceSignature(inputs));
    return cacheFolder() / (std::to_string(hash) + "-" + name);
}

bool storeIsCurrent(const std::filesystem::path& store, const std::vector<std::filesystem::path>& inputs)
{
    std::error_code ec;
    if (!std::filesystem::exists(store, ec))
        return false;
    try {
        const storage::StoreReader reader(store);
        return reader.meta("source_signature") == sourceSignature(inputs);
    } catch (const std::exception&) {
        return false;  // not a store we can read: build it again
    }
}

std::optional<std::filesystem::path> storeForPaths(const QStringList& paths, QWidget* parent)
{
    std::vector<std::filesystem::path> inputs;
    for (const QString& p : paths)
        inputs.emplace_back(p.toStdString());
    if (inputs.empty())
        return std::nullopt;
    try {
        if (inputs.size() == 1 && storage::detectFormat(inputs[0]) == storage::TraceFormat::Strata)
            return inputs[0];
        IngestRequest request;
        request.inputs = inputs;
        request.output = storePathFor(inputs);
        if (storeIsCurrent(request.output, inputs))
            return request.output;
        checkInputs(request);

        // Ingest on a worker thread; the dialog polls its progress and can cancel.
        QProgressDialog dialog(QObject::tr("Ingesting %1…").arg(paths.front()), QObject::tr("Cancel"), 0, 1000, parent);
        dialog.setWindowModality(Qt::WindowModal);
        dialog.setMinimumDuration(300);
        std::mutex mutex;
        std::string phase;
        double fraction = 0;
        std::atomic<bool> cancelled = false, done = false;
        std::exception_ptr error;
        std::thread worker([&] {
            try {
                ingestTraces(request, [&](const std::string& name, std::uint64_t d, std::uint64_t total) {
                    std::lock_guard lock(mutex);
                    phase = name;
                    fraction = total > 0 ? static_cast<double>(d) / static_cast<double>(total) : 0;
                    return !cancelled.load();
                });
            } catch (...) {
                error = std::current_exception();
            }
            done = true;
        });
        while (!done) {
            {
                std::lock_guard lock(mutex);
                dialog.setLabelText(QString::fromStdString(phase));
                dialog.setValue(static_cast<int>(fraction * 999));
            }
            if (dialog.wasCanceled())
                cancelled = true;
            QApplication::processEvents(QEventLoop::AllEvents, 50);
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
        }
        worker.join();
        dialog.reset();
        if (error)
            std::rethrow_exception(error);
        return request.output;
    } catch (const storage::Cancelled&) {
        return std::nullopt;
    } catch (const std::exception& e) {
        QMessageBox::warning(parent, QObject::tr("Cannot open"), QString::fromUtf8(e.what()));
        return std::nullopt;
    }
}

} // namespace strata::app
