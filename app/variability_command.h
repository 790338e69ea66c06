#pragma once
// What `strata variability` and `strata-mpi variability` share: the command line and the
// output (a table or JSON) around storage/analysis/variability.h.

#include "app/commands.h"
#include "storage/analysis/variability.h"

#include <string>

namespace strata::app {

struct VariabilityArgs
{
    std::string store;
    storage::VariabilityRequest request;
    bool json = false;
};

/// Throws UsageError.
VariabilityArgs variabilityArgsFrom(const Args& args);
std::string variabilityText(const storage::VariabilityReport& report, bool json);

} // namespace strata::app
