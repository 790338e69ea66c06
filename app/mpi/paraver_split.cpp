#include "app/mpi/paraver_split.h"

#include "app/file_import.h"
#include "app/mpi/mpi_comm.h"
#include "app/mpi/mpi_progress.h"
#include "app/mpi/split_common.h"
#include "storage/import/common/gzip_reader.h"
#include "storage/import/paraver/paraver_importer.h"
#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"
#include "storage/store/store_builder.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

namespace strata::app::mpi {

namespace {

using storage::InputError;

/// The weighing pass parses one line in this many.
constexpr std::size_t kWeighEvery = 16;

/// The leading numeric fields after the record type of a `1:`, `2:` or `3:` line:
/// cpu:appl:task:thread (for a communication, the sender's).
bool recordFields(std::string_view line, std::int64_t* fields, std::size_t count)
{
    const char* p = line.data() + 2;
    const char* end = line.data() + line.size();
    for (std::size_t i = 0; i < count; ++i) {
        const auto [next, ec] = std::from_chars(p, end, fields[i]);
        if (ec != std::errc() || next == end || *next != ':')
            return false;
        p = next + 1;
    }
    return true;
}

/// The node (root) whose thread a record belongs to: -1 for lines that have none or that
/// the importer will reject (they go to rank 0, whose importer says why).
int recordRoot(const storage::ParaverRootMap& roots, std::string_view line)
{
    if (line.size() < 2 || line[1] != ':' || (line[0] != '1' && line[0] != '2' && line[0] != '3'))
        return -1;
    std::int64_t f[4];
    return recordFields(line, f, 4) ? roots.rootOf(f[1], f[2], f[3]) : -1;
}

/// Calls `fn(line, last)` for each line of `text` (without its '\n'); `last` is true for
/// a final line no newline ends.
template<typename Fn>
void forEachLine(std::string_view text, Fn fn)
{
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t nl = text.find('\n', at);
        if (nl == std::string_view::npos) {
            fn(text.substr(at), true);
            return;
        }
        fn(text.substr(at, nl - at), false);
        at = nl + 1;
    }
}

std::size_t lineCount(std::string_view text)
{
    std::size_t n = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    return n + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

void putVarint(std::string& out, std::uint64_t v)
{
    while (v >= 0x80) {
        out.push_back(static_cast<char>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

std::uint64_t takeVarint(std::string_view& in)
{
    std::uint64_t v = 0;
    for (int shift = 0; !in.empty(); shift += 7) {
        const auto byte = static_cast<unsigned char>(in.front());
        in.remove_prefix(1);
        v |= std::uint64_t(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            break;
    }
    return v;
}

/// One rank's share of the ParaverImportStats, as text for the gather to rank 0.
std::string encodeShare(const storage::ParaverImportStats& s)
{
    std::string out;
    forEachParaverCount(
        s, [&](const char*, const std::uint64_t& v) { out += std::to_string(v) + " "; });
    for (const std::uint64_t v : { s.firstUnmatchedEndLine, s.firstUnclosedLine,
             s.firstEndBeforeBeginLine, s.firstDepthOverflowLine, std::uint64_t(s.truncated) })
        out += std::to_string(v) + " ";
    out += "\n";
    for (const std::string& w : s.warnings)
        out += w + "\n";
    return out;
}

storage::ParaverImportStats decodeShare(
    std::string_view text, const storage::ParaverImportStats& base)
{
    storage::ParaverImportStats s = base;
    s.warnings.clear();
    const char* p = text.data();
    const char* end = p + text.size();
    const auto next = [&](std::uint64_t& v) {
        p = std::from_chars(p, end, v).ptr + 1;
    };
    forEachParaverCount(s, [&](const char*, std::uint64_t& v) { next(v); });
    std::uint64_t truncated = 0;
    for (std::uint64_t* v : { &s.firstUnmatchedEndLine, &s.firstUnclosedLine,
             &s.firstEndBeforeBeginLine, &s.firstDepthOverflowLine, &truncated })
        next(*v);
    s.truncated = truncated != 0;
    forEachLine(std::string_view(p + 1, static_cast<std::size_t>(end - p - 1)),
        [&](std::string_view w, bool) { s.warnings.emplace_back(w); });
    return s;
}

/// The error of the earliest line any rank met (rank order among equal lines), on every
/// rank; "" when none. Errors without a line (I/O) count as line 0.
std::string earliestError(const Comm& comm, const std::string& error, std::uint64_t line)
{
    constexpr auto kNone = std::numeric_limits<std::int64_t>::max();
    const std::int64_t mine = error.empty() ? kNone : static_cast<std::int64_t>(line);
    const std::int64_t first = comm.min(mine);
    if (first == kNone)
        return {};
    return comm.firstError(mine == first ? error : std::string());
}

}  // namespace

bool splitsParaver(const Comm& comm, const IngestPlan& plan)
{
    return comm.size() > 1 && plan.traces.size() == 1 && plan.joins.empty()
        && plan.formatOf(plan.traces[0]) == storage::TraceFormat::Paraver;
}

std::uint64_t paraverChunkBytes(int ranks)
{
    if (const char* text = std::getenv("STRATA_MPI_CHUNK_BYTES")) {
        if (const std::uint64_t v = std::strtoull(text, nullptr, 10); v > 0)
            return v;
    }
    return std::clamp<std::uint64_t>(
        (std::uint64_t(256) << 20) / static_cast<std::uint64_t>(std::max(1, ranks)),
        std::uint64_t(1) << 20, std::uint64_t(32) << 20);
}

ParaverShare importParaverSplit(
    const Comm& comm, const IngestPlan& plan, const std::filesystem::path& shard)
{
    const std::filesystem::path& file = plan.traces.at(0);
    const auto ranks = static_cast<std::size_t>(comm.size());
    const auto me = static_cast<std::size_t>(comm.rank());

    // 1. The header, on every rank: the same lines give the same error everywhere.
    std::optional<RangeReader> reader;
    std::vector<std::string> headerLines;
    std::uint64_t bodyStart = 0;
    std::optional<storage::ParaverRootMap> roots;
    comm.agree(attempt([&] {
        reader.emplace(file);
        storage::ParaverImportOptions probeOptions;
        probeOptions.endRoot = 0;  // no track: only the header is wanted
        storage::MemoryTrace probeSink;
        storage::ParaverLineImporter probe(file, probeSink, probeOptions);
        while (!probe.header() && bodyStart < reader->size()) {
            const std::uint64_t next = reader->lineStart(bodyStart + 1);
            std::string text;
            reader->read(bodyStart, next, text);
            const bool last = text.empty() || text.back() != '\n';
            if (!last)
                text.pop_back();
            headerLines.push_back(text);
            if (last)
                probe.lastLine(text, headerLines.size());
            else
                probe.line(text, headerLines.size());
            bodyStart = next;
        }
        if (!probe.header())
            throw InputError::atLine(
                file.string(), 1, "expected a Paraver header '#Paraver (DATE):...'");
        roots.emplace(*probe.header());
    }));
    const int nodes = roots->roots();

    // 2. Chunks at line starts; chunk i is rank i mod K's.
    // A small file still gives every rank a chunk.
    const std::uint64_t body = reader->size() - bodyStart;
    const std::uint64_t chunkBytes = std::min(
        paraverChunkBytes(comm.size()), std::max<std::uint64_t>(1, (body + ranks - 1) / ranks));
    const std::size_t chunks = static_cast<std::size_t>((body + chunkBytes - 1) / chunkBytes);
    const std::size_t rounds = (chunks + ranks - 1) / ranks;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> myChunks;  // [round]
    std::uint64_t myBytes = 0;
    std::string error = attempt([&] {
        for (std::size_t i = me; i < chunks; i += ranks) {
            const std::uint64_t from =
                i == 0 ? bodyStart : reader->lineStart(bodyStart + i * chunkBytes);
            const std::uint64_t to =
                reader->lineStart(std::min(reader->size(), bodyStart + (i + 1) * chunkBytes));
            myChunks.emplace_back(from, std::max(from, to));
            myBytes += myChunks.back().second - myChunks.back().first;
        }
    });
    comm.agree(error);
    const bool weigh = nodes > 1;
    const std::uint64_t passes = weigh ? 2 : 1;
    MpiReadProgress progress(comm, 1, passes * (reader->size() - bodyStart), 1, passes * myBytes);
    const storage::ProgressFn reading = progress.forFile(0);
    // From here on a failure ends the progress messages first (mpi_progress.h).
    const auto agree = [&](const std::string& failed) {
        if (const std::string first = comm.firstError(failed); !first.empty()) {
            progress.finish();
            throw AgreedError(first);
        }
    };
    std::uint64_t done = 0;
    const auto readChunk = [&](std::size_t round, std::string& text) {
        text.clear();
        if (round < myChunks.size()) {
            reader->read(myChunks[round].first, myChunks[round].second, text);
            done += text.size();
            if (reading)
                reading(done, passes * myBytes);
        }
    };

    // 3. Who owns which node: weights, then blocks. A message between nodes of two
    // owners is stored by the sender's, to a foreign track the run resolves.
    std::vector<int> firstNode { 0, nodes };
    if (weigh) {
        std::vector<std::int64_t> weights(static_cast<std::size_t>(nodes), 0);
        error = attempt([&] {
            std::string text;
            for (std::size_t round = 0; round < myChunks.size(); ++round) {
                readChunk(round, text);
                // One line in kWeighEvery for the weights (the bytes of a node's
                // records, estimated: parsing every line's thread here cost as much as
                // the owners' parsing saved).
                std::size_t seen = 0;
                forEachLine(text, [&](std::string_view line, bool) {
                    if (seen++ % kWeighEvery != 0)
                        return;
                    if (const int from = recordRoot(*roots, line); from >= 0)
                        weights[static_cast<std::size_t>(from)] +=
                            static_cast<std::int64_t>((line.size() + 1) * kWeighEvery);
                });
            }
        });
        agree(error);
        weights = comm.sum(weights);
        firstNode = dealNodes(
            weights, std::vector<bool>(static_cast<std::size_t>(nodes) + 1, true), comm.size());
    }
    const int myFirst = firstNode[std::min(me, firstNode.size() - 1)];
    const int myEnd = me + 1 < firstNode.size() ? firstNode[me + 1] : nodes;
    const bool owner = comm.root() || myFirst < myEnd;
    std::vector<std::size_t> ownerOf(static_cast<std::size_t>(nodes), 0);
    for (std::size_t r = 0; r + 1 < firstNode.size(); ++r) {
        for (int n = firstNode[r]; n < firstNode[r + 1]; ++n)
            ownerOf[static_cast<std::size_t>(n)] = r;
    }

    // 4. Rounds: read, send each line to its owner, feed what came in file order.
    ParaverShare share;
    std::unique_ptr<storage::ParaverLineImporter> importer;
    std::uint64_t errorLine = 0;
    error = attempt([&] {
        if (!owner)
            return;
        storage::StoreBuildOptions options;
        options.threads = plan.request->threads;
        share.builder = std::make_unique<storage::StoreBuilder>(shard, options);
        storage::ParaverImportOptions mine;
        mine.firstRoot = myFirst;
        mine.endRoot = myEnd;
        importer = std::make_unique<storage::ParaverLineImporter>(file, *share.builder, mine);
        for (std::size_t i = 0; i < headerLines.size(); ++i)
            importer->line(headerLines[i], i + 1);
    });
    agree(error);
    std::uint64_t linesBefore = headerLines.size();
    std::string text;
    std::vector<std::string> out(ranks);
    for (std::size_t round = 0; round < rounds; ++round) {
        error = attempt([&] { readChunk(round, text); });
        agree(error);
        const std::vector<std::int64_t> counts =
            comm.allgather(static_cast<std::int64_t>(lineCount(text)));
        // Each line as varint(gap from the previous line sent to the same owner, times 2,
        // plus 1 for the unterminated last line of the file), the line and '\n'.
        std::uint64_t number = linesBefore;
        for (std::size_t r = 0; r < me; ++r)
            number += static_cast<std::uint64_t>(counts[r]);
        for (std::string& o : out)
            o.clear();
        std::vector<std::uint64_t> previous(ranks, number);
        forEachLine(text, [&](std::string_view line, bool last) {
            ++number;
            const int root = recordRoot(*roots, line);
            const std::size_t to = root < 0 ? 0 : ownerOf[static_cast<std::size_t>(root)];
            putVarint(out[to], (number - previous[to]) * 2 + (last ? 1 : 0));
            previous[to] = number;
            out[to].append(line);
            out[to].push_back('\n');
        });
        const std::vector<std::string> in = comm.exchange(out);
        if (importer && error.empty()) {
            error = attempt([&] {
                std::uint64_t base = linesBefore;
                for (std::size_t r = 0; r < ranks; ++r) {
                    std::string_view records = in[r];
                    std::uint64_t line = base;
                    while (!records.empty()) {
                        const std::uint64_t code = takeVarint(records);
                        line += code / 2;
                        const std::size_t nl = records.find('\n');
                        errorLine = line;
                        if (code % 2)
                            importer->lastLine(records.substr(0, nl), line);
                        else
                            importer->line(records.substr(0, nl), line);
                        records.remove_prefix(nl + 1);
                    }
                    base += static_cast<std::uint64_t>(counts[r]);
                }
            });
        }
        for (std::int64_t c : counts)
            linesBefore += static_cast<std::uint64_t>(c);
        if (const std::string first = earliestError(comm, error, errorLine); !first.empty()) {
            progress.finish();
            throw AgreedError(first);
        }
    }
    progress.finish();

    // 5. The trace's end for what is still open, then rank 0's report of the whole file.
    const std::int64_t endNs = comm.max(importer ? importer->maxTimeNs() : 0);
    storage::ParaverImportStats stats;
    std::string encoded;
    error = attempt([&] {
        if (!importer)
            return;
        stats = importer->finish(std::max<std::int64_t>(importer->header()->endNs, endNs));
        importer.reset();
        encoded = encodeShare(stats);
    });
    comm.agree(error);
    const std::vector<std::string> parts = comm.gather(encoded);
    const std::int64_t events =
        comm.sum(share.builder ? static_cast<std::int64_t>(share.builder->eventCount()) : 0);
    error.clear();
    if (comm.root()) {
        std::vector<storage::ParaverImportStats> shares;
        for (const std::string& part : parts) {
            if (!part.empty())
                shares.push_back(decodeShare(part, stats));  // rank 0's header and side files
        }
        storage::MemoryTrace report;
        const ImportResult result = reportParaverImport(
            storage::mergeParaverShares(shares, linesBefore, reader->size()), file, report, 0);
        share.report = report.meta();
        share.warnings = result.warnings;
        if (events == 0)
            error = "no events in " + file.string() + ": " + result.noEventsReason;
    }
    comm.agree(comm.broadcast(error));
    return share;
}

}  // namespace strata::app::mpi
