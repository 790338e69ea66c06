#pragma once
// Opening files in the GUI: app/input_store.h decides which store opens and ingests raw
// traces into it; here that runs on a worker under a progress dialog that can cancel,
// and an error (a bad file, naming it and the position) is shown in a message box over
// the window, which stays as it was.

#include "app/input_store.h"

#include <QStringList>

#include <filesystem>
#include <optional>

class QWidget;

namespace strata::app {

/// The store to open for `paths`: the store itself, a current one, or a new one
/// ingested with a progress dialog over `parent`. Nullopt when the user cancelled;
/// errors are shown in a message box and give nullopt too.
std::optional<std::filesystem::path> storeForPaths(const QStringList& paths, QWidget* parent);

}  // namespace strata::app
