#pragma once
// Who writes a build's temporary files: their names carry ".tmp.PID@HOST" (or ".spill.")
// so that the next build into the same place removes only the leftovers of builds that
// are gone, never those of a build still running. On this host a builder is gone when its
// process is. On another host (the rank of an MPI build on a node this build does not
// run on) its process cannot be asked: its file counts as left over once nothing has
// written it for kForeignIdle. The one mistake possible is a build from another node into
// the same place still parsing, unwritten for that long, while a second build starts
// there: two builds into one place already replace each other's result.

#include <chrono>
#include <filesystem>
#include <string>

namespace strata::storage {

inline constexpr std::chrono::minutes kForeignIdle { 10 };

/// "PID@HOST" for this process (HOST: the host name up to its first '.').
std::string builderTag();

/// Whether `file`'s name carries a builder tag (".tmp.PID[@HOST]" or ".spill.PID[@HOST]";
/// no host: this one) whose builder is gone. False for names without a tag.
bool builderGone(const std::filesystem::path& file);

}  // namespace strata::storage
