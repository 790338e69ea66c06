#include "app/cli.h"

#include "app/commands.h"
#include "storage/store/input_error.h"
#include "storage/store/sqlite_db.h"

#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

namespace strata::app {

namespace {

constexpr const char* kUsage = R"(usage:
  strata ingest INPUT... -o STORE [--format auto|chrome|paraver|nsys|ncu|counters|folded|otf2] [--threads N]
                [--shards N]   # several trace files: N shards built in parallel (default: by size)
  strata info STORE [--json] [--verify]
  strata metrics STORE [--json] [--window T0:T1] [--level process|thread|gpu|stream] [--rules FILE] [--all-workers]
  strata metrics STORE --profile [--json] [--window T0:T1] [--level ...] [--top N]
  strata metrics RUN1.strata RUN2.strata... [--json] [--level ...] [--strong|--weak]   # POP scaling table
  strata variability STORE [--json] [--window T0:T1] [--level process|thread|gpu|stream] [--names REGEX] [--top N]
  strata render STORE -o OUT.png|OUT.svg [--view timeline|flame|metrics|variability|counters|window] [--window T0:T1] [--tracks REGEX]
                [--size WxH] [--color-by name|category|role|kernel-metric=METRIC] [--counters REGEX] [--scale 1..4]
                [--diff-window T0:T1 | --diff-store OTHER.strata]   # flame: differential against a baseline
                [--names REGEX]   # variability: the names shown
  strata render RUN1.strata RUN2.strata... --view metrics -o OUT.png|OUT.svg [--size WxH] [--scale 1..4]   # POP scaling table
  strata cut STORE -o OUT.strata|OUT.json|OUT.json.gz|OUT.prv [--window T0:T1] [--tracks REGEX] [--filter EXPR] [--rebase]
  strata synth -o OUT.json|OUT.json.gz|OUT.prv|OUT.strata --events N [--ranks R] [--seed S] [--shards N]
  strata bench [--quick] [--json] [--events N] [--queries N] [--no-ingest] [--runs N] [--store STORE] [--flame|--replay]
  strata bench --variability [--json] [--events N] [--store STORE]
  strata [FILE...]       # the GUI: a store, or traces as ingest takes them (the demo when no FILE)
Times accept units: 12.5ms, 300us, 42ns, 2s (plain numbers are ns).
)";

/// The usage lines of one command (with their continuation lines and the last line),
/// or empty for an unknown one.
std::string commandUsage(const std::string& command)
{
    const std::string_view usage(kUsage);
    const std::string head = "  strata " + command + " ";
    std::string out;
    bool inCommand = false;
    for (std::size_t at = 0; at < usage.size();) {
        const std::size_t end = usage.find('\n', at) + 1;
        const std::string_view line = usage.substr(at, end - at);
        at = end;
        if (line.starts_with("  strata "))
            inCommand = line.starts_with(head);
        else if (!line.starts_with("   "))
            inCommand = false;
        if (inCommand)
            out += line;
    }
    if (out.empty())
        return out;
    return "usage:\n" + out + std::string(usage.substr(usage.rfind('\n', usage.size() - 2) + 1));
}

/// True when the arguments ask for help (before any "--").
bool asksForHelp(const Args& args)
{
    for (const std::string& a : args) {
        if (a == "--")
            return false;
        if (a == "--help" || a == "-h")
            return true;
    }
    return false;
}

} // namespace

int runCli(int argc, char** argv)
{
    Args args(argv + 1, argv + argc);
    const std::string command = args.empty() ? std::string() : args.front();
    const Args rest = args.empty() ? Args() : Args(args.begin() + 1, args.end());
    try {
        if (command == "--help" || command == "-h" || command == "help") {
            std::fputs(kUsage, stdout);
            return kExitOk;
        }
        if (asksForHelp(rest)) {
            // A command's own lines; after FILE (the GUI), all of them.
            const std::string usage = commandUsage(command);
            std::fputs(usage.empty() ? kUsage : usage.c_str(), stdout);
            return kExitOk;
        }
        if (command == "--version") {
            std::printf("strata %s\n", STRATA_VERSION);
            return kExitOk;
        }
        if (command == "ingest")
            return ingestCommand(rest);
        if (command == "info")
            return infoCommand(rest);
        if (command == "synth")
            return synthCommand(rest);
        if (command == "bench")
            return benchCommand(rest);
        if (command == "render")
            return renderCommand(rest, argc, argv);
        if (command == "cut")
            return cutCommand(rest);
        if (command == "metrics")
            return metricsCommand(rest);
        if (command == "variability")
            return variabilityCommand(rest);
        if (!command.empty() && command[0] == '-')
            throw UsageError{"unknown option " + command};
        return guiCommand(args, argc, argv);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "strata: %s\n%s", e.message.c_str(), kUsage);
        return kExitUsage;
    } catch (const storage::InputError& e) {
        std::fprintf(stderr, "strata: %s\n", e.what());
        return kExitBadInput;
    } catch (const storage::StoreError& e) {
        std::fprintf(stderr, "strata: %s\n", e.what());
        return kExitBadInput;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "strata: error: %s\n", e.what());
        return kExitBadInput;
    }
}

} // namespace strata::app
