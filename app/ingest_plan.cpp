#include "app/ingest_plan.h"

#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/store/input_error.h"

#include <algorithm>

namespace strata::app {

namespace {

std::uint64_t sizeOf(const std::filesystem::path& input)
{
    std::error_code ec;
    return std::filesystem::is_regular_file(input, ec) ? std::filesystem::file_size(input, ec) : 0;
}

} // namespace

storage::TraceFormat IngestPlan::formatOf(const std::filesystem::path& input) const
{
    return request->format ? *request->format : storage::detectFormat(input);
}

IngestPlan planIngest(const IngestRequest& request)
{
    IngestPlan plan;
    plan.request = &request;
    for (const std::filesystem::path& input : request.inputs)
        (joinsToTraces(plan.formatOf(input)) ? plan.joins : plan.traces).push_back(input);
    for (const std::filesystem::path& input : plan.traces) {
        plan.traceSizes.push_back(sizeOf(input));
        plan.inputBytes += plan.traceSizes.back();
    }
    for (const std::filesystem::path& input : plan.joins)
        plan.inputBytes += sizeOf(input);
    return plan;
}

storage::ChromePrescan prescanTraceFile(
    const IngestPlan& plan, std::size_t index, int scanThreads, const storage::ProgressFn& progress)
{
    const std::filesystem::path& input = plan.traces.at(index);
    if (plan.formatOf(input) != storage::TraceFormat::Chrome)
        return {};
    storage::ChromeImportOptions options;
    options.threads = scanThreads;
    return storage::prescanChromeJson(input, options, progress);
}

std::optional<model::TimeNs> ranksOrigin(
    const IngestPlan& plan, const std::vector<storage::ChromePrescan>& prescans)
{
    std::optional<model::TimeNs> origin;
    if (plan.traces.size() < 2)
        return origin;
    for (const storage::ChromePrescan& prescan : prescans) {
        if (prescan.originNs)
            origin = origin ? std::min(*origin, *prescan.originNs) : *prescan.originNs;
    }
    return origin;
}

std::vector<std::string> importTraceFile(const IngestPlan& plan, std::size_t index, storage::TraceSink& sink,
                                         storage::StoreBuilder& builder, const ImportContext& context,
                                         const storage::ProgressFn& progress)
{
    const std::filesystem::path& input = plan.traces.at(index);
    ImportContext c = context;
    c.rank = plan.traces.size() > 1 ? static_cast<int>(index) : -1;
    const std::uint64_t eventsBefore = builder.eventCount();
    const auto firstTrack = static_cast<model::TrackId>(builder.resources().size());
    ImportResult result = importFile(input, plan.formatOf(input), sink, builder, index, c, progress);
    if (builder.eventCount() == eventsBefore)
        throw storage::InputError("no events in " + input.string() + ": " + result.noEventsReason);
    if (context.alignment && result.originNs) {
        context.alignment->imported(builder, firstTrack,
            static_cast<model::TrackId>(builder.resources().size()), *result.originNs);
    }
    return result.warnings;
}

void RankAlignment::imported(storage::StoreBuilder& builder, model::TrackId first,
    model::TrackId end, model::TimeNs originNs)
{
    std::lock_guard lock(m_mutex);
    m_files.push_back({ &builder, first, end, originNs });
}

std::optional<model::TimeNs> RankAlignment::earliest() const
{
    std::lock_guard lock(m_mutex);
    std::optional<model::TimeNs> origin;
    for (const File& file : m_files)
        origin = std::min(origin.value_or(file.originNs), file.originNs);
    return origin;
}

void RankAlignment::align()
{
    if (const std::optional<model::TimeNs> origin = earliest())
        alignTo(*origin);
}

void RankAlignment::alignTo(model::TimeNs originNs)
{
    std::lock_guard lock(m_mutex);
    for (const File& file : m_files) {
        file.builder->shiftTracks(file.first, file.end, file.originNs - originNs);
        file.builder->setMeta("origin_ns", std::to_string(originNs));
    }
}

bool alignsRanksAfter(const IngestPlan& plan)
{
    return plan.traces.size() > 1 && plan.joins.empty()
        && std::all_of(
            plan.traces.begin(), plan.traces.end(), [&](const std::filesystem::path& trace) {
                return plan.formatOf(trace) == storage::TraceFormat::Chrome;
            });
}

std::vector<std::size_t> groupsBySize(const std::vector<std::uint64_t>& sizes, int shards)
{
    std::uint64_t total = 0;
    for (std::uint64_t s : sizes)
        total += s;
    std::vector<std::size_t> first {0};
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        sum += sizes[i];
        const std::size_t shardsLeft = static_cast<std::size_t>(shards) - first.size();
        const std::size_t filesLeft = sizes.size() - i - 1;
        const bool full = static_cast<double>(sum) * shards >= static_cast<double>(total) * first.size();
        if (shardsLeft > 0 && filesLeft >= shardsLeft && (full || filesLeft == shardsLeft))
            first.push_back(i + 1);
    }
    first.push_back(sizes.size());
    return first;
}

} // namespace strata::app
