#include "storage/import/stacks/folded_importer.h"

#include "storage/import/common/line_reader.h"
#include "storage/import/common/text_util.h"
#include "storage/import/stacks/stack_interner.h"
#include "storage/store/input_error.h"

#include <charconv>
#include <limits>
#include <vector>

namespace strata::storage {

namespace {

constexpr const char* kExpectedLine = "expected 'frame;frame;...;frame COUNT' (a non-negative integer count)";

/// Splits "a;b;c" into its frames, root first.
void splitFrames(std::string_view path, std::vector<std::string_view>& frames)
{
    frames.clear();
    std::size_t start = 0;
    for (;;) {
        const std::size_t semi = path.find(';', start);
        frames.push_back(path.substr(start, semi == std::string_view::npos ? path.npos : semi - start));
        if (semi == std::string_view::npos)
            return;
        start = semi + 1;
    }
}

} // namespace

FoldedImportStats importFolded(const std::filesystem::path& path, TraceSink& sink,
                               const ProgressFn& progress)
{
    LineReader reader(path, progress);
    const std::string& file = reader.fileName();
    FoldedImportStats stats;
    sink.setMeta("source_format", "folded");
    sink.setMeta("origin_ns", "0");
    sink.setMeta("time_axis", "synthetic: 1 ns per count, lines in file order");
    const model::TrackId process = sink.addTrack(model::kNoTrack, model::ResourceKind::Process,
                                                 path.filename().string());
    const model::TrackId track = sink.addTrack(process, model::ResourceKind::Thread, "folded stacks", 0, "count");
    StackInterner interner(sink);
    std::vector<std::string_view> frames;
    std::string_view line;
    while (reader.next(line)) {
        ++stats.lines;
        const std::string_view text = trim(line);
        if (text.empty() || text.front() == '#')
            continue;
        const std::size_t space = text.find_last_of(" \t");
        if (space == std::string_view::npos)
            throw InputError::atLine(file, reader.lineNumber(), kExpectedLine + std::string(", found no count"));
        const std::string_view countText = text.substr(space + 1);
        std::uint64_t count = 0;
        const auto [end, ec] = std::from_chars(countText.data(), countText.data() + countText.size(), count);
        if (ec == std::errc::result_out_of_range || (ec == std::errc() && count > std::uint64_t(std::numeric_limits<std::int64_t>::max())))
            throw InputError::atLine(file, reader.lineNumber(), "count '" + std::string(countText) + "' is too large");
        if (ec != std::errc() || end != countText.data() + countText.size())
            throw InputError::atLine(file, reader.lineNumber(),
                                     std::string(kExpectedLine) + ", found '" + std::string(countText) + "'");
        const std::string_view stackText = trim(text.substr(0, space));
        if (stackText.empty())
            throw InputError::atLine(file, reader.lineNumber(), std::string(kExpectedLine) + ", found no frames");
        if (count > std::uint64_t(std::numeric_limits<std::int64_t>::max()) - stats.totalCount)
            throw InputError::atLine(file, reader.lineNumber(), "the sum of the counts exceeds 2^63");
        splitFrames(stackText, frames);
        const model::StackId stack = interner.intern(frames);
        stats.samples += addWeightedSample(sink, track, static_cast<model::TimeNs>(stats.totalCount), stack, count);
        stats.totalCount += count;
        stats.maxDepth = std::max<std::uint64_t>(stats.maxDepth, frames.size());
        ++stats.stackLines;
    }
    if (stats.stackLines == 0)
        throw InputError::atLine(file, stats.lines + 1, std::string(kExpectedLine) + ", found no stack lines");
    return stats;
}

} // namespace strata::storage
