#include "app/cli.h"

#include "app/commands.h"
#include "storage/store/input_error.h"
#include "storage/store/sqlite_db.h"

#include <cstdio>
#include <exception>
#include <string_view>

namespace strata::app {

namespace {

constexpr const char* kUsage = R"(usage:
  strata ingest INPUT... -o STORE [--format auto|chrome|paraver|nsys|ncu|counters|folded|otf2] [--threads N]
  strata info STORE [--json]
  strata metrics STORE [--json] [--window T0:T1] [--level process|thread|gpu|stream] [--rules FILE] [--all-workers]
  strata metrics STORE --profile [--json] [--window T0:T1] [--level ...] [--top N]
  strata render STORE -o OUT.png|OUT.svg [--view timeline|flame|metrics|counters|window] [--window T0:T1] [--tracks REGEX]
                [--size WxH] [--color-by name|category|role|kernel-metric=METRIC] [--counters REGEX] [--scale 1..4]
                [--diff-window T0:T1 | --diff-store OTHER.strata]   # flame: differential against a baseline
  strata cut STORE -o OUT.strata|OUT.json|OUT.json.gz|OUT.prv [--window T0:T1] [--tracks REGEX] [--filter EXPR] [--rebase]
  strata synth -o OUT.json|OUT.json.gz|OUT.prv|OUT.strata --events N [--ranks R] [--seed S]
  strata bench [--quick] [--json] [--events N] [--queries N] [--no-ingest] [--store STORE]
  strata [FILE]          # the GUI
Times accept units: 12.5ms, 300us, 42ns, 2s (plain numbers are ns).
)";

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
