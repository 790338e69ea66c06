#include "storage/import/chrome/chrome_event_batch.h"

#include <cstring>
#include <thread>

namespace strata::storage {

namespace {

inline bool isSpace(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/// The events of one range: from `start` (an event's '{', or a guess of one) while events
/// start before `limit`.
struct RangeScan
{
    EventBatch batch;
    /// Where the next event starts once the range is done (after "," and white space), or
    /// npos when the range stopped early (see the file comment).
    std::size_t next = std::string_view::npos;
};

RangeScan scanRange(std::string_view text, std::size_t start, std::size_t limit)
{
    RangeScan out;
    std::vector<JsonField> fields;
    std::size_t pos = start;
    while (pos < limit) {
        if (text[pos] != '{')
            return out;
        std::size_t n = 0;
        try {
            n = scanJsonObject(text.substr(pos), fields);
        } catch (const JsonSyntaxError&) {
            return out;
        }
        if (n == 0)
            return out;
        ScannedEvent e;
        e.offset = pos;
        e.length = n;
        e.firstField = out.batch.fields.size();
        e.fieldCount = fields.size();
        classifyChromeFields(fields, e.event);
        out.batch.fields.insert(out.batch.fields.end(), fields.begin(), fields.end());
        out.batch.events.push_back(e);
        pos += n;
        while (pos < text.size() && isSpace(text[pos]))
            ++pos;
        if (pos == text.size() || text[pos] != ',')
            return out;
        ++pos;
        while (pos < text.size() && isSpace(text[pos]))
            ++pos;
    }
    out.next = pos;
    return out;
}

void append(EventBatch& to, EventBatch&& from)
{
    const std::size_t shift = to.fields.size();
    to.fields.insert(to.fields.end(), from.fields.begin(), from.fields.end());
    for (ScannedEvent& e : from.events) {
        e.firstField += shift;
        to.events.push_back(e);
    }
}

}  // namespace

std::size_t guessEventStart(std::string_view text, std::size_t from)
{
    while (from < text.size()) {
        const void* hit = std::memchr(text.data() + from, '{', text.size() - from);
        if (!hit)
            return std::string_view::npos;
        const std::size_t brace =
            static_cast<std::size_t>(static_cast<const char*>(hit) - text.data());
        std::size_t p = brace;
        while (p > 0 && isSpace(text[p - 1]))
            --p;
        if (p > 0 && text[p - 1] == ',') {
            --p;
            while (p > 0 && isSpace(text[p - 1]))
                --p;
            if (p > 0 && text[p - 1] == '}')
                return brace;
        }
        from = brace + 1;
    }
    return std::string_view::npos;
}

EventBatch scanEventBatch(std::string_view text, int threads)
{
    // Range starts: the true start, then one guess per further thread, each guess after
    // the previous one.
    std::vector<std::size_t> starts { 0 };
    const std::size_t ranges = static_cast<std::size_t>(std::max(1, threads));
    for (std::size_t i = 1; i < ranges; ++i) {
        const std::size_t target = std::max(starts.back() + 1, text.size() * i / ranges);
        const std::size_t guess = guessEventStart(text, target);
        if (guess == std::string_view::npos)
            break;
        starts.push_back(guess);
    }
    std::vector<RangeScan> scans(starts.size());
    auto limitOf = [&](std::size_t i) {
        return i + 1 < starts.size() ? starts[i + 1] : text.size();
    };
    {
        std::vector<std::jthread> helpers;
        for (std::size_t i = 1; i < starts.size(); ++i)
            helpers.emplace_back([&, i] { scans[i] = scanRange(text, starts[i], limitOf(i)); });
        scans[0] = scanRange(text, starts[0], limitOf(0));
    }
    EventBatch out = std::move(scans[0].batch);
    for (std::size_t i = 1; i < scans.size() && scans[i - 1].next == starts[i]; ++i)
        append(out, std::move(scans[i].batch));
    return out;
}

}  // namespace strata::storage
