#pragma once
// Long GUI work (ingest, cut) runs on a worker thread while a modal progress dialog shows
// its phase and fraction and offers Cancel; the work's ProgressFn returns false once the
// user cancelled, and the work throws storage::Cancelled. Errors are rethrown here.

#include "storage/store/progress.h"

#include <QString>

#include <functional>
#include <string>

class QWidget;

namespace strata::app {

/// Reports (phase, done, total); returns false to cancel.
using PhasedProgress = std::function<bool(const std::string& phase, std::uint64_t done, std::uint64_t total)>;

/// Runs `work` on a worker thread under a progress dialog over `parent`; rethrows what
/// it threw (storage::Cancelled after a cancel).
void runWithProgress(QWidget* parent, const QString& title, const std::function<void(const PhasedProgress&)>& work);

} // namespace strata::app
