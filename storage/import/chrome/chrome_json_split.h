#pragma once
// One uncompressed Chrome/Kineto JSON file imported by several processes at once
// (`strata-mpi ingest`, app/mpi/chrome_split.h): importChromeJson's two passes cut at
// event boundaries, with what the processes must exchange between them.
//
//  - Pass 1 in parts: scanChromeChunk() reads the events that start in a byte range
//    (ChromeEventReader started inside the array, stopped at the range's end) and returns
//    the part's layout (chrome_json_importer_p.h) with the facts that decide who imports
//    which pid: the bytes of each pid's events, the first event that creates a track on
//    each thread, and the pids of each flow id. mergeChromeChunks() joins the parts, in
//    file order, into the layout one pass would have learnt (ChromeLayout::append), and
//    lists the root tracks in the order the import creates them, with the cuts between
//    them that separate no pid's tracks and no flow's ends.
//  - Pass 2 in parts: each process converts the events of the pids it owns, in file order,
//    into its own sink (ChromeEventImporter); their stats add up (addChromeStats) to those
//    of one import, finished with its warnings by finishChromeStats().
//
// The result equals importChromeJson's, track for track, as the converter's per-track
// state (B/E stacks, async ids, counters) is per pid, flows are matched by id within one
// owner, and every number the converter derives from other pids (sort keys of counter and
// group tracks) is counted per process.

#include "storage/import/chrome/chrome_json_importer.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage {

class ChromeEventReader;

/// Pass 1 over the events of one part of a file.
struct ChromeChunkScan
{
    std::string facts;  ///< encoded, for mergeChromeChunks
    std::uint64_t events = 0;  ///< events that start in the part
    /// The next part's first event starts at `stopOffset` (>= the part's end): the array
    /// goes on. Otherwise the array (and the file) ended in this part.
    bool stopped = false;
    std::uint64_t stopOffset = 0;
    std::uint64_t firstEvent = 0;  ///< where the part's first event starts
    std::uint64_t lastEventEnd = 0;  ///< just past its last event (its start if none)
    // When the file ended in this part: as ChromeEventReader says.
    std::uint64_t endPosition = 0;
    std::string truncation;
    std::string endNote;
};

/// Whether `path`'s trace is a bare array ('[' first), from its first bytes.
bool chromeBareArray(const std::filesystem::path& path);

/// Pass 1 over the events of uncompressed `path` that start in [from, to): from the file's
/// start when `from` is 0, else `from` must be where an event of the array starts. Throws
/// InputError for malformed text there exactly as importChromeJson does. `progress` gets
/// the bytes read of the part now and then.
ChromeChunkScan scanChromeChunk(const std::filesystem::path& path, std::uint64_t from,
    std::uint64_t to, bool bareArray, int threads,
    const std::function<void(std::uint64_t)>& progress = {});

/// A file's parts joined (mergeChromeChunks).
struct ChromeSplit
{
    /// Pass 1 of the whole file, as prescanChromeJson gives it.
    ChromePrescan prescan;
    /// The root tracks the import creates, in that order: the pid (as the converter
    /// names it: a string's text or a number's JSON text) of each; a pid that gives two
    /// roots (GPU streams and host threads) is listed twice.
    std::vector<std::string> rootPids;
    /// [root]: bytes of the events of its pid (on the pid's first root).
    std::vector<std::int64_t> weights;
    /// [root]: whether roots root - 1 and root may be imported by different processes
    /// (no pid and no flow has tracks on both sides); [0] and [roots] are true.
    std::vector<bool> cuttable;
};

/// Joins the facts of a file's parts, given in file order.
ChromeSplit mergeChromeChunks(const std::vector<std::string>& facts);

/// Calls `fn(offset, text, pid)` for each event of `text`: events of the array separated
/// by ',' and white space (a part's [start, lastEventEnd)), the first at byte `base` of
/// `file`; `pid` as the converter names it (a string's text or a number's JSON text).
/// Throws InputError for text that is not such events.
void forEachChromeEvent(std::string_view text, std::uint64_t base, const std::string& file,
    const std::function<void(std::uint64_t, std::string_view, std::string_view)>& fn);

/// Pass 2 fed by the caller: the events of some pids, in file order, into `sink`.
class ChromeEventImporter
{
public:
    /// `prescan`: the whole file's pass 1. Writes the run's meta (origin, rank, ...) to
    /// `sink` as importChromeJson does.
    ChromeEventImporter(const ChromePrescan& prescan, TraceSink& sink,
        const ChromeImportOptions& options, std::string fileName);
    ~ChromeEventImporter();
    ChromeEventImporter(const ChromeEventImporter&) = delete;
    ChromeEventImporter& operator=(const ChromeEventImporter&) = delete;

    /// The event whose JSON text is `text`, at byte `offset` of the file, the array's
    /// `index`-th.
    void event(std::string_view text, std::uint64_t offset, std::uint64_t index);
    /// The reader's current event.
    void event(const ChromeEventReader& reader);
    /// Closes what is still open; the stats of these events (no warnings yet).
    ImportStats finish();

private:
    struct State;
    std::unique_ptr<State> m_state;
};

/// Stats as bytes, and back (between processes).
std::string encodeChromeStats(const ImportStats& stats);
ImportStats decodeChromeStats(std::string_view bytes);
/// Adds the counts of `part` (another process's events of the same file) to `into`.
void addChromeStats(ImportStats& into, const ImportStats& part);
/// The warning lines of an import: the reader's truncation (`truncation`, empty when
/// none), the gzip stream's (`gzipTruncation`), the array's end note, then one per anomaly
/// kind with events; sets stats.truncated and the unknown phases' description.
void finishChromeStats(ImportStats& stats, const std::string& truncation,
    const std::string& gzipTruncation, const std::string& endNote);

}  // namespace strata::storage
