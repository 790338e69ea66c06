// `mpirun -n K strata-mpi metrics STORE... [options]`: `strata metrics` with the run's
// shards dealt to the ranks (shard s to rank s mod K). Each rank computes the figures of
// the workers its shards hold (storage/analysis/efficiency_partial.h): role times per
// worker, GPU idle causes, role attribution, useful counters per thread, time outside MPI
// and the replay's calls and sent messages per process. First the ranks exchange what
// their workers' exact reads teach of name categories (all-gather through rank 0, only
// where a rule depends on a category), then each reads its workers, and rank 0 gathers
// the partials as bytes, merges them, runs the ideal replay and formats the report with
// strata's own code (app/metrics_command.h): the same bytes as `strata metrics`.
// `--profile` deals tracks the same way (each track's rows are computed alone). A failure
// on any rank is voted, so every rank leaves alike and rank 0 prints one line.

#include "app/metrics_command.h"
#include "app/mpi/mpi_comm.h"
#include "app/mpi/mpi_commands.h"
#include "app/mpi/mpi_shards.h"
#include "storage/analysis/efficiency_partial.h"

#include <cstdio>

namespace strata::app::mpi {

namespace {

/// Runs `fn` on every rank; when it throws on any, every rank throws AgreedError.
template<typename Fn>
void together(const Comm& comm, Fn fn)
{
    std::string error;
    try {
        fn();
    } catch (const std::exception& e) {
        error = e.what();
    }
    comm.agree(error);
}

class MpiMetricsEngine : public MetricsEngine
{
public:
    explicit MpiMetricsEngine(const Comm& comm)
        : m_comm(comm)
    {}

    std::unique_ptr<storage::StoreReader> open(const std::string& path) override
    {
        std::unique_ptr<storage::StoreReader> store;
        together(m_comm, [&] { store = std::make_unique<storage::StoreReader>(path); });
        return store;
    }

    storage::EfficiencyReport efficiency(
        storage::StoreReader& store, const storage::EfficiencyRequest& request) override
    {
        std::optional<storage::EfficiencyPlan> plan;
        std::unique_ptr<storage::EfficiencyCollector> collector;
        const bool alone = m_comm.size() == 1;
        std::string learned;
        bool learnedAny = false;
        together(m_comm, [&] {
            plan = storage::planEfficiency(store, request);
            collector = std::make_unique<storage::EfficiencyCollector>(store, *plan,
                [&](const model::Worker& w) { return rankReads(m_comm, store, w.tracks.front()); });
            if (alone)
                return;  // one reader reads every worker in order: nothing to learn first
            const storage::CategoryLearning learning = collector->learn();
            learnedAny = !learning.empty();
            learned = learning.toBytes();
        });
        // Where a rule depends on a category, every rank needs every earlier worker's
        // learning: gathered, merged, broadcast.
        std::string everyone = learned;
        if (m_comm.max(learnedAny ? 1 : 0) != 0) {
            const std::vector<std::string> learnings = m_comm.gather(learned);
            together(m_comm, [&] {
                storage::CategoryLearning merged;
                for (const std::string& bytes : learnings)
                    merged.merge(storage::CategoryLearning::fromBytes(bytes));
                everyone = m_comm.root() ? merged.toBytes() : std::string();
            });
            everyone = m_comm.broadcast(everyone);
        }
        std::string partial;
        together(m_comm, [&] {
            if (alone) {
                partial = collector->collect().toBytes();
                return;
            }
            const auto learning = storage::CategoryLearning::fromBytes(everyone);
            partial = collector->collect(&learning).toBytes();
        });
        const std::vector<std::string> partials = m_comm.gather(partial);
        storage::EfficiencyReport report;
        together(m_comm, [&] {
            if (!m_comm.root())
                return;
            storage::EfficiencyPartial merged;
            for (const std::string& bytes : partials)
                merged.merge(storage::EfficiencyPartial::fromBytes(bytes));
            report = storage::finishEfficiency(*plan, std::move(merged));
        });
        return report;
    }

    storage::NameProfile profile(storage::StoreReader& store,
        std::span<const model::TrackId> tracks, model::TimeRange window, int maxSlots) override
    {
        std::string part;
        together(m_comm, [&] {
            std::vector<model::TrackId> mine;
            for (model::TrackId t : tracks) {
                if (rankReads(m_comm, store, t))
                    mine.push_back(t);
            }
            part = storage::profileNames(store, mine, window, maxSlots).toBytes();
        });
        const std::vector<std::string> parts = m_comm.gather(part);
        storage::NameProfile profile;
        together(m_comm, [&] {
            std::vector<storage::NameProfile> profiles;
            for (const std::string& bytes : parts)
                profiles.push_back(storage::NameProfile::fromBytes(bytes));
            profile = storage::NameProfile::join(std::move(profiles), tracks);
        });
        return profile;
    }

    bool formats() const override { return m_comm.root(); }

private:
    const Comm& m_comm;
};

}  // namespace

int metricsCommand(const Comm& comm, const Args& args)
{
    MetricsArgs a;
    std::string error;
    try {
        a = metricsArgsFrom(args);
    } catch (const UsageError&) {
        throw;  // every rank parses the same arguments: thrown alike
    } catch (const std::exception& e) {
        error = e.what();  // a rules file: read by every rank
    }
    comm.agree(error);
    MpiMetricsEngine engine(comm);
    const std::string out = metricsOutput(a, engine);
    if (comm.root())
        std::fputs(out.c_str(), stdout);
    return kExitOk;
}

}  // namespace strata::app::mpi
