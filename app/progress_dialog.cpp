#include "app/progress_dialog.h"

#include <QApplication>
#include <QProgressDialog>

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

namespace strata::app {

void runWithProgress(QWidget* parent, const QString& title, const std::function<void(const PhasedProgress&)>& work)
{
    QProgressDialog dialog(title, QObject::tr("Cancel"), 0, 1000, parent);
    dialog.setWindowModality(Qt::WindowModal);
    dialog.setMinimumDuration(300);
    std::mutex mutex;
    std::string phase;
    double fraction = 0;
    std::atomic<bool> cancelled = false, done = false;
    std::exception_ptr error;
    std::thread worker([&] {
        try {
            work([&](const std::string& name, std::uint64_t d, std::uint64_t total) {
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
            dialog.setLabelText(title + QStringLiteral("\n") + QString::fromStdString(phase));
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
}

} // namespace strata::app
