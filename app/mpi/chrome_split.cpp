#include "app/mpi/chrome_split.h"

#include "app/file_import.h"
#include "app/mpi/mpi_comm.h"
#include "app/mpi/mpi_progress.h"
#include "app/mpi/paraver_split.h"
#include "storage/import/chrome/chrome_event_batch.h"
#include "storage/import/chrome/chrome_json_split.h"
#include "storage/import/common/gzip_reader.h"
#include "storage/store/byte_io.h"
#include "storage/store/memory_trace.h"
#include "storage/store/store_builder.h"

#include <optional>
#include <unordered_map>

namespace strata::app::mpi {

namespace {

/// A chunk of the file and its pass 1, as every rank knows it.
struct Chunk
{
    std::uint64_t start = 0;  ///< where its first event starts (a guess until checked)
    std::uint64_t end = UINT64_MAX;  ///< the next chunk's guessed start
    std::string error;  ///< its scan failed with this
    storage::ChromeChunkScan scan;
};

/// Where an event may start at or after `pos` (guessEventStart, which looks at the text
/// before it), or the file's end when nothing looks like one.
std::uint64_t guessStart(RangeReader& reader, std::uint64_t pos)
{
    constexpr std::uint64_t kBack = 4096;
    constexpr std::uint64_t kBlock = std::uint64_t(1) << 16;
    std::string block;
    for (std::uint64_t at = pos; at < reader.size(); at += kBlock) {
        const std::uint64_t from = at >= kBack ? at - kBack : 0;
        reader.read(from, std::min(reader.size(), at + kBlock), block);
        const std::size_t guess = storage::guessEventStart(block, at - from);
        if (guess != std::string::npos)
            return from + guess;
    }
    return reader.size();
}

void encodeChunk(storage::ByteWriter& out, std::size_t index, const Chunk& c)
{
    out.varint(index);
    out.string(c.error);
    out.u8(c.scan.stopped ? 1 : 0);
    out.varint(c.scan.stopOffset);
    out.varint(c.scan.events);
    out.varint(c.scan.firstEvent);
    out.varint(c.scan.lastEventEnd);
    out.varint(c.scan.endPosition);
    out.string(c.scan.truncation);
    out.string(c.scan.endNote);
    out.string(c.scan.facts);
}

void decodeChunks(std::string_view bytes, std::vector<Chunk>& chunks)
{
    storage::ByteReader in(bytes);
    while (in.remaining() > 0) {
        Chunk& c = chunks.at(in.varint());
        c.error = std::string(in.string());
        c.scan.stopped = in.u8() != 0;
        c.scan.stopOffset = in.varint();
        c.scan.events = in.varint();
        c.scan.firstEvent = in.varint();
        c.scan.lastEventEnd = in.varint();
        c.scan.endPosition = in.varint();
        c.scan.truncation = std::string(in.string());
        c.scan.endNote = std::string(in.string());
        c.scan.facts = std::string(in.string());
    }
}

}  // namespace

bool splitsChrome(const Comm& comm, const IngestPlan& plan)
{
    return comm.size() > 1 && plan.traces.size() == 1 && plan.joins.empty()
        && plan.formatOf(plan.traces[0]) == storage::TraceFormat::Chrome
        && !storage::isGzipFile(plan.traces[0]);
}

SplitShare importChromeSplit(
    const Comm& comm, const IngestPlan& plan, const std::filesystem::path& shard)
{
    const std::filesystem::path& file = plan.traces.at(0);
    const std::string fileName = file.string();
    const auto ranks = static_cast<std::size_t>(comm.size());
    const auto me = static_cast<std::size_t>(comm.rank());
    const int threads = plan.request->threads;

    // 1. Chunks at guessed event starts; chunk i is rank i mod K's.
    std::optional<RangeReader> reader;
    bool bareArray = false;
    comm.agree(attempt([&] {
        reader.emplace(file);
        bareArray = storage::chromeBareArray(file);
    }));
    const std::uint64_t size = reader->size();
    const std::uint64_t chunkBytes = std::min(
        paraverChunkBytes(comm.size()), std::max<std::uint64_t>(1, (size + ranks - 1) / ranks));
    const std::size_t count = static_cast<std::size_t>((size + chunkBytes - 1) / chunkBytes);
    std::vector<Chunk> chunks(std::max<std::size_t>(count, 1));
    std::vector<std::int64_t> guesses(chunks.size(), 0);
    std::string error = attempt([&] {
        for (std::size_t i = me; i < chunks.size(); i += ranks) {
            if (i > 0)
                guesses[i] = static_cast<std::int64_t>(guessStart(*reader, i * chunkBytes));
        }
    });
    comm.agree(error);
    guesses = comm.sum(guesses);  // each rank filled its own
    std::uint64_t myBytes = 0;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        chunks[i].start = std::max(
            static_cast<std::uint64_t>(guesses[i]), i > 0 ? chunks[i - 1].start : std::uint64_t(0));
        if (i > 0)
            chunks[i - 1].end = chunks[i].start;
    }
    for (std::size_t i = me; i < chunks.size(); i += ranks)
        myBytes += std::min(chunks[i].end, size) - chunks[i].start;

    MpiReadProgress progress(comm, 1, 2 * size, 1, 2 * myBytes);
    const storage::ProgressFn reading = progress.forFile(0);
    std::uint64_t done = 0;
    const auto advance = [&](std::uint64_t bytes) {
        if (reading)
            reading(done + bytes, 2 * myBytes);
    };
    // From here on a failure ends the progress messages first (mpi_progress.h).
    const auto agree = [&](const std::string& failed) {
        if (const std::string first = comm.firstError(failed); !first.empty()) {
            progress.finish();
            throw AgreedError(first);
        }
    };
    const auto scanChunk = [&](std::size_t i) {
        Chunk& c = chunks[i];
        c.error = attempt([&] {
            c.scan = {};
            if (c.start < size)
                c.scan =
                    storage::scanChromeChunk(file, c.start, c.end, bareArray, threads, advance);
        });
        done += std::min(c.end, size) - std::min(c.start, size);
        advance(0);
    };

    // 2. Pass 1, then the chunks checked in file order; a chunk whose guess was wrong is
    // scanned again from where the one before it stopped.
    std::vector<std::size_t> scanned;
    for (std::size_t i = me; i < chunks.size(); i += ranks) {
        scanChunk(i);
        scanned.push_back(i);
    }
    std::size_t valid = 0;
    for (;;) {
        storage::ByteWriter out;
        for (const std::size_t i : scanned)
            encodeChunk(out, i, chunks[i]);
        scanned.clear();
        std::string all;
        for (const std::string& part : comm.gather(out.bytes())) {
            storage::ByteWriter framed;
            framed.string(part);
            all += framed.bytes();
        }
        all = comm.broadcast(all);
        storage::ByteReader parts(all);
        while (parts.remaining() > 0)
            decodeChunks(parts.string(), chunks);

        valid = 1;
        std::size_t rescan = 0;
        for (std::size_t i = 1; i < chunks.size(); ++i) {
            const Chunk& before = chunks[i - 1];
            if (!before.error.empty() || !before.scan.stopped)
                break;  // the file's end (or its error) came before this chunk
            if (before.scan.stopOffset != chunks[i].start) {
                rescan = i;
                break;
            }
            ++valid;
        }
        if (!chunks[valid - 1].error.empty()) {
            progress.finish();
            throw AgreedError(chunks[valid - 1].error);
        }
        if (rescan == 0)
            break;
        chunks[rescan].start = chunks[rescan - 1].scan.stopOffset;
        if (rescan % ranks == me) {
            scanChunk(rescan);
            scanned.push_back(rescan);
        }
    }

    // 3. The layout of the whole file, and who owns which root.
    std::vector<std::string> facts;
    std::vector<std::uint64_t> firstIndex;
    std::uint64_t events = 0;
    for (std::size_t i = 0; i < valid; ++i) {
        facts.push_back(std::move(chunks[i].scan.facts));
        firstIndex.push_back(events);
        events += chunks[i].scan.events;
    }
    const storage::ChromeSplit split = storage::mergeChromeChunks(facts);
    facts.clear();
    const int roots = static_cast<int>(split.rootPids.size());
    const std::vector<int> firstRoot = dealNodes(split.weights, split.cuttable, comm.size());
    std::unordered_map<std::string, std::size_t> ownerOf;
    for (std::size_t r = 0; r + 1 < firstRoot.size(); ++r) {
        for (int n = firstRoot[r]; n < firstRoot[r + 1]; ++n)
            ownerOf[split.rootPids[static_cast<std::size_t>(n)]] = r;
    }
    const int myFirst = firstRoot[me];
    const int myEnd = me + 1 < firstRoot.size() ? firstRoot[me + 1] : roots;
    const bool owner = comm.root() || myFirst < myEnd;

    // 4. Rounds: read, send each event to its owner, feed what came in file order.
    SplitShare share;
    std::unique_ptr<storage::ChromeEventImporter> importer;
    error = attempt([&] {
        if (!owner)
            return;
        storage::StoreBuildOptions options;
        options.threads = threads;
        share.builder = std::make_unique<storage::StoreBuilder>(shard, options);
        importer = std::make_unique<storage::ChromeEventImporter>(
            split.prescan, *share.builder, storage::ChromeImportOptions {}, fileName);
    });
    agree(error);
    const std::size_t rounds = (valid + ranks - 1) / ranks;
    std::string text;
    std::vector<storage::ByteWriter> out(ranks);
    for (std::size_t round = 0; round < rounds; ++round) {
        const std::size_t i = round * ranks + me;
        for (storage::ByteWriter& o : out)
            o.bytes().clear();
        error = attempt([&] {
            if (i >= valid)
                return;
            const Chunk& c = chunks[i];
            reader->read(c.scan.firstEvent, c.scan.lastEventEnd, text);
            std::uint64_t index = firstIndex[i];
            storage::forEachChromeEvent(text, c.scan.firstEvent, fileName,
                [&](std::uint64_t offset, std::string_view event, std::string_view pid) {
                    const auto it = ownerOf.find(std::string(pid));
                    storage::ByteWriter& to = out[it == ownerOf.end() ? 0 : it->second];
                    to.varint(index++);
                    to.varint(offset);
                    to.string(event);
                });
            done += text.size();
            advance(0);
        });
        agree(error);
        std::vector<std::string> sending(ranks);
        for (std::size_t r = 0; r < ranks; ++r)
            sending[r] = std::move(out[r].bytes());
        const std::vector<std::string> in = comm.exchange(sending);
        error = attempt([&] {
            if (!importer)
                return;
            for (const std::string& from : in) {
                storage::ByteReader received(from);
                while (received.remaining() > 0) {
                    const std::uint64_t index = received.varint();
                    const std::uint64_t offset = received.varint();
                    importer->event(received.string(), offset, index);
                }
            }
        });
        agree(error);
    }
    progress.finish();

    // 5. What is still open closes, then rank 0's report of the whole file.
    std::string encoded;
    error = attempt([&] {
        if (!importer)
            return;
        encoded = storage::encodeChromeStats(importer->finish());
        importer.reset();
    });
    comm.agree(error);
    const std::vector<std::string> parts = comm.gather(encoded);
    const std::int64_t imported =
        comm.sum(share.builder ? static_cast<std::int64_t>(share.builder->eventCount()) : 0);
    error.clear();
    if (comm.root()) {
        storage::ImportStats stats;
        bool first = true;
        for (const std::string& part : parts) {
            if (part.empty())
                continue;
            const storage::ImportStats mine = storage::decodeChromeStats(part);
            if (first) {
                stats.originNs = mine.originNs;
                stats.endNs = mine.endNs;
                first = false;
            }
            storage::addChromeStats(stats, mine);
        }
        const Chunk& last = chunks[valid - 1];
        stats.bytes = last.scan.endPosition;
        storage::finishChromeStats(stats, last.scan.truncation, {}, last.scan.endNote);
        storage::MemoryTrace report;
        const ImportResult result = reportChromeImport(stats, file, report, 0);
        share.report = report.meta();
        share.warnings = result.warnings;
        if (imported == 0)
            error = "no events in " + fileName + ": " + result.noEventsReason;
    }
    comm.agree(comm.broadcast(error));
    return share;
}

}  // namespace strata::app::mpi
