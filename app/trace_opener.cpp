#include "app/trace_opener.h"

#include "app/progress_dialog.h"
#include "storage/store/input_error.h"

#include <QMessageBox>

namespace strata::app {

std::optional<std::filesystem::path> storeForPaths(const QStringList& paths, QWidget* parent)
{
    std::vector<std::filesystem::path> inputs;
    for (const QString& p : paths)
        inputs.emplace_back(p.toStdString());
    if (inputs.empty())
        return std::nullopt;
    try {
        std::filesystem::path store;
        // Checking whether a store is current opens it, so that runs on the worker too;
        // the dialog shows only when the work outlasts its minimum duration.
        runWithProgress(parent, QObject::tr("Opening %1…").arg(paths.front()),
            [&](const PhasedProgress& progress) {
                store = storeForInputs(inputs, progress).store;
            });
        return store;
    } catch (const storage::Cancelled&) {
        return std::nullopt;
    } catch (const std::exception& e) {
        QMessageBox::warning(parent, QObject::tr("Cannot open"), QString::fromUtf8(e.what()));
        return std::nullopt;
    }
}

}  // namespace strata::app
