// Tests of the Paraver importer's batch reader (paraver_record_batches.h): the records it
// parses ahead, on its own thread or not, must give the calls, counts, warnings and errors
// the importer's line-by-line parser gives, and the same store bytes.

#include "storage/import/paraver/paraver_importer.h"
#include "storage/store/input_error.h"
#include "storage/store/store_builder.h"
#include "storage/store/trace_sink.h"

#include "tests/support/gzip_file.h"
#include "tests/support/temp_dir.h"
#include "tests/support/transcript_sink.h"
#include <catch2/catch.hpp>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace strata;

namespace {

std::filesystem::path fixture(const std::string& name)
{
    return std::filesystem::path(STRATA_TEST_DATA_DIR) / "paraver" / name;
}

void addCounts(std::ostream& out, storage::ParaverImportStats& stats)
{
    storage::forEachParaverCount(
        stats, [&](const char* name, std::uint64_t& v) { out << name << '=' << v << '\n'; });
    out << "lines=" << stats.lines << " bytes=" << stats.bytes << " end=" << stats.endNs
        << " truncated=" << stats.truncated << '\n';
    for (const std::string& w : stats.warnings)
        out << w << '\n';
}

/// importParaver's calls, counts and warnings, or its error.
std::string importTranscript(const std::filesystem::path& prv, int threads)
{
    test::TranscriptSink sink;
    storage::ParaverImportOptions options;
    options.threads = threads;
    try {
        storage::ParaverImportStats stats = storage::importParaver(prv, sink, options);
        addCounts(sink.out, stats);
    } catch (const storage::InputError& e) {
        sink.out << "error: " << e.what() << '\n';
    }
    return sink.out.str();
}

/// The same import through ParaverLineImporter, which reads every line with the
/// importer's own parser (an uncompressed, untruncated file).
std::string lineTranscript(const std::filesystem::path& prv)
{
    test::TranscriptSink sink;
    const std::string text = test::readFile(prv);
    try {
        storage::ParaverLineImporter importer(prv, sink, {});
        std::uint64_t number = 0;
        std::size_t at = 0;
        for (std::size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1)
            importer.line(std::string_view(text).substr(at, nl - at), ++number);
        if (at < text.size())
            importer.lastLine(std::string_view(text).substr(at), ++number);
        const model::TimeNs endNs = std::max(importer.header()->endNs, importer.maxTimeNs());
        std::vector<storage::ParaverImportStats> shares { importer.finish(endNs) };
        storage::ParaverImportStats stats =
            storage::mergeParaverShares(shares, number, text.size());
        addCounts(sink.out, stats);
    } catch (const storage::InputError& e) {
        sink.out << "error: " << e.what() << '\n';
    }
    return sink.out.str();
}

/// A trace of several MB (a few batches) with every kind of line the batch reader
/// parses, and the ones it must leave to the importer's parser: negative and 19-digit
/// numbers, '\r\n', empty, comment and communicator lines, a line longer
/// than a read block.
std::string bigTrace()
{
    std::ostringstream out;
    out << "#Paraver (01/02/2023 at 10:00):1000000_ns:2(2,1):1:2(2:1,1:2),1\n";
    for (int i = 0; i < 40000; ++i) {
        const int t = i * 10;
        out << "1:1:1:1:1:" << t << ':' << t + 7 << ':' << (i % 3) << '\n';
        out << "2:1:1:1:1:" << t << ":50000001:" << 1 + i % 2 << ":42000050:" << i * 11 << '\n';
        out << "2:1:1:1:1:" << t + 5 << ":50000001:0\n";
        out << "2:3:1:2:1:" << t + 1 << ":60000019:3:30000000:1\n";
        out << "2:3:1:2:1:" << t + 4 << ":60000019:0\n";
        out << "3:1:1:1:1:" << t << ':' << t + 1 << ":3:1:2:1:" << t + 2 << ':' << t + 3
            << ":1024:" << i % 5 << '\n';
        switch (i % 2000) {
        case 5:
            out << "2:1:1:1:1:" << t + 2 << ":42000050:-4\n";  // a negative value
            break;
        case 7:
            out << "2:1:1:1:1:" << t + 2 << ":42000050:18446744073709551615\n";  // 20 digits
            break;
        case 9:
            out << "1:2:1:1:2:" << t << ':' << t + 3 << ":1\r\n";  // '\r\n'
            break;
        case 11:
            out << "\n#a comment\nc:1:1:2:1:2\n";
            break;
        case 13:
            out << "2:1:1:1:1:" << t + 3 << ":42000050:0000000000000000012\n";  // 19 digits
            break;
        case 15:
            // Values of every length around the 8-byte reads: 1 to 21 digits.
            for (int n = 1; n <= 21; ++n)
                out << "2:1:1:1:1:" << t + 3
                    << ":42000050:" << std::string(n, '9').replace(0, 1, "1")
                    << (n % 2 ? "\n" : ":42000050:7\n");
            // Event types of 8 to 13 digits (up to 2^40), in one or two 8-byte reads.
            for (int n = 8; n <= 13; ++n)
                out << "2:1:1:1:1:" << t + 3 << ':' << '1' << std::string(n - 2, '0') << '3' << ":5\n";
            break;
        default:
            break;
        }
    }
    // A line longer than a read block (GzipReader::kBlockBytes): many pairs.
    out << "2:1:1:1:1:600000";
    for (int k = 0; k < 120000; ++k)
        out << ":42000050:" << k;
    out << '\n';
    out << "1:1:1:1:1:600001:600002:1\n";
    return out.str();
}

}  // namespace

TEST_CASE(
    "Paraver batches parsed ahead give the line parser's calls, counts and errors", "[paraver]") {
    test::TempDir dir;
    const std::string big = bigTrace();
    REQUIRE(big.size() > (std::size_t(4) << 20));
    std::vector<std::pair<std::string, std::string>> cases { { "big", big } };
    for (const std::size_t cut : { big.size() / 3, big.size() - 5, big.size() - 1 })
        cases.emplace_back("cut" + std::to_string(cut), big.substr(0, cut));
    for (const char* bad : { "1:1:1:1:1:5:3:1", "2:1:1:1:1:5:", "3:1:1:1:1:1", "2:1:1:9:1:5:1:1",
             "2:1:1:1:1:5:1099511627776:1", "2:1:1:1:1:5:42000050:2.5", "x:1" }) {
        std::string broken = big;
        broken.insert(broken.find('\n', big.size() / 2) + 1, std::string(bad) + "\n");
        cases.emplace_back(bad, broken);
    }
    cases.emplace_back("small", test::readFile(fixture("small.prv")));
    cases.emplace_back("anomalies", test::readFile(fixture("anomalies.prv")));
    cases.emplace_back("header only, no newline", big.substr(0, big.find('\n')));
    cases.emplace_back("empty", "");
    for (const auto& [name, text] : cases) {
        INFO(name);
        const std::filesystem::path prv = dir / "t.prv";
        std::ofstream(prv, std::ios::binary) << text;
        std::filesystem::copy_file(fixture(name == "anomalies" ? "anomalies.pcf" : "small.pcf"),
            dir / "t.pcf", std::filesystem::copy_options::overwrite_existing);
        const std::string one = importTranscript(prv, 1);
        if (!text.empty())  // (the line importer has no header to ask then)
            CHECK(one == lineTranscript(prv));
        CHECK(importTranscript(prv, 2) == one);
        CHECK(importTranscript(prv, 3) == one);
        // Compressed (streamed, where the plain file is mapped), and cut inside the
        // compressed stream.
        test::writeGzip(dir / "t.prv.gz", text);
        auto streamed = [&](int threads) {  // its errors named as the plain file's
            std::string t = importTranscript(dir / "t.prv.gz", threads);
            const std::string gzName = (dir / "t.prv.gz").string();
            for (std::size_t at; (at = t.find(gzName)) != std::string::npos;)
                t.replace(at, gzName.size(), prv.string());
            return t;
        };
        CHECK(streamed(2) == one);
        CHECK(streamed(1) == one);
        const std::string gz = test::readFile(dir / "t.prv.gz");
        std::ofstream(dir / "c.prv.gz", std::ios::binary) << gz.substr(0, gz.size() * 2 / 3);
        CHECK(importTranscript(dir / "c.prv.gz", 2) == importTranscript(dir / "c.prv.gz", 1));
    }
}

TEST_CASE(
    "Paraver stores built with and without the read-ahead thread are the same bytes", "[paraver]") {
    test::TempDir dir;
    std::ofstream(dir / "t.prv", std::ios::binary) << bigTrace();
    std::filesystem::copy_file(fixture("small.pcf"), dir / "t.pcf");
    std::vector<std::string> stores;
    for (const int threads : { 1, 2 }) {
        const std::filesystem::path store = dir / ("t" + std::to_string(threads) + ".strata");
        storage::StoreBuilder builder(store);
        storage::ParaverImportOptions options;
        options.threads = threads;
        storage::importParaver(dir / "t.prv", builder, options);
        builder.finish();
        stores.push_back(test::readFile(store));
    }
    REQUIRE(stores[0].size() > 0);
    CHECK(stores[0] == stores[1]);
}
