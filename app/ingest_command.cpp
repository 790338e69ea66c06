#include "app/arg_parser.h"
#include "app/commands.h"
#include "app/ingest_job.h"
#include "app/ingest_plan.h"
#include "app/progress_bar.h"

#include <algorithm>
#include <cstdio>
#include <thread>

namespace strata::app {

IngestRequest ingestRequestFrom(const Args& args)
{
    ArgParser p(args, {"-o", "--output", "--format", "--threads", "--shards"}, {});
    const auto output = p.value("-o") ? p.value("-o") : p.value("--output");
    if (p.positional().empty() || !output)
        throw UsageError{"ingest needs INPUT... and -o STORE"};
    IngestRequest request;
    request.output = *output;
    request.inputs.assign(p.positional().begin(), p.positional().end());
    const std::string formatText = p.valueOr("--format", "auto");
    if (formatText != "auto") {
        request.format = storage::parseFormatName(formatText);
        if (*request.format == storage::TraceFormat::Unknown)
            throw UsageError{"unknown --format '" + formatText + "'"};
    }
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    request.threads = static_cast<int>(p.integer("--threads", cores, 1, 256));
    request.shards = static_cast<int>(p.integer("--shards", 0, 0, 4096));
    return request;
}

int ingestCommand(const Args& args)
{
    const IngestRequest request = ingestRequestFrom(args);
    IngestProgressBars bars;
    const IngestSummary summary = ingestTraces(request, bars.callback());
    bars.finish();
    for (const std::string& warning : summary.warnings)
        std::fprintf(stderr, "%s\n", warning.c_str());
    std::fprintf(stderr, "%s\n", summaryLine(request, summary).c_str());
    return kExitOk;
}

} // namespace strata::app
