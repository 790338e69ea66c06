#pragma once
// A sink that writes every call an importer makes as a line of text, in order: tests
// compare two imports of one file (by different threads, or parsers) call for call.

#include "storage/store/trace_sink.h"

#include <sstream>
#include <string>

namespace strata::test {

/// Every call an importer makes, as text, in order.
class TranscriptSink : public storage::TraceSink
{
public:
    model::StringTable& strings() override { return m_strings; }
    model::TrackId addTrack(model::TrackId parent, model::ResourceKind kind, std::string name,
        std::int64_t sortKey, std::string unit) override
    {
        out << "track " << parent << ' ' << static_cast<int>(kind) << ' ' << name << ' ' << sortKey
            << ' ' << unit << '\n';
        return m_tracks++;
    }
    void setMeta(std::string key, std::string value) override
    {
        out << "meta " << key << '=' << value << '\n';
    }
    void addInterval(model::TrackId t, const model::Interval& e, std::string_view args) override
    {
        out << "X " << t << ' ' << e.startNs << ' ' << e.endNs << ' ' << m_strings.text(e.name)
            << ' ' << m_strings.text(e.category) << ' ' << int(e.depth) << ' '
            << static_cast<int>(e.role) << ' ' << e.seq << ' ' << args << '\n';
    }
    void addInstant(model::TrackId t, const model::Instant& e, std::string_view args) override
    {
        out << "i " << t << ' ' << e.timeNs << ' ' << m_strings.text(e.name) << ' '
            << m_strings.text(e.category) << ' ' << args << '\n';
    }
    void addCounterSample(model::TrackId t, const model::CounterSample& s) override
    {
        out << "C " << t << ' ' << s.timeNs << ' ' << s.value << '\n';
    }
    void addFlow(model::TrackId t, const model::Flow& f) override
    {
        out << "f " << t << ' ' << f.fromNs << ' ' << f.toTrack << ' ' << f.toNs << ' '
            << f.sizeBytes << ' ' << f.tag << '\n';
    }
    model::StackId internStack(model::StackId, model::StringId) override { return 0; }
    void addStackSample(model::TrackId, const model::StackSample&) override { out << "sample\n"; }

    std::ostringstream out;

private:
    model::StringTable m_strings;
    model::TrackId m_tracks = 0;
};

}  // namespace strata::test
