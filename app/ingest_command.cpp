#include "app/arg_parser.h"
#include "app/commands.h"
#include "app/ingest_job.h"
#include "app/progress_bar.h"

#include <cstdio>
#include <memory>

namespace strata::app {

int ingestCommand(const Args& args)
{
    ArgParser p(args, {"-o", "--output", "--format", "--threads"}, {});
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
    request.threads = static_cast<int>(p.integer("--threads", 2, 1, 256));

    // One terminal bar per phase (reading each file, then tiling).
    std::unique_ptr<ProgressBar> bar;
    std::string current;
    const IngestSummary summary = ingestTraces(request, [&](const std::string& phase, std::uint64_t done, std::uint64_t total) {
        if (phase != current) {
            bar = std::make_unique<ProgressBar>(phase);
            current = phase;
        }
        return bar->update(done, total);
    });
    bar.reset();
    for (const std::string& warning : summary.warnings)
        std::fprintf(stderr, "%s\n", warning.c_str());
    std::fprintf(stderr, "ingested %llu events from %zu file(s) (%.1f MB) into %s (%.1f MB) in %.2f s\n",
                 static_cast<unsigned long long>(summary.events), request.inputs.size(), summary.inputBytes / 1e6,
                 output->c_str(), std::filesystem::file_size(*output) / 1e6, summary.seconds);
    return kExitOk;
}

} // namespace strata::app
