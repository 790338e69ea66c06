#pragma once
// What every command that writes a file checks first: the output must not be one of its
// inputs, by any spelling ("./x.json", an absolute path, a symlink, a hard link: files
// are compared by device and inode), and a store is written only over nothing or over
// another store, never over a file that is not one (a trace, an nsys export). The checks
// run before any work, so a refused command has touched nothing.

#include <filesystem>
#include <vector>

namespace strata::app {

/// Throws storage::InputError "the output would overwrite input X" when `output` is the
/// same file as one of `inputs`.
void checkOutputSparesInputs(
    const std::filesystem::path& output, const std::vector<std::filesystem::path>& inputs);

/// Throws storage::InputError when something other than a Strata store exists at
/// `output`, the path a store is about to be written to.
void checkStoreOutputReplaceable(const std::filesystem::path& output);

}  // namespace strata::app
