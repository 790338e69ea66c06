// A standalone main for the fuzz targets, for builds without libFuzzer (g++): runs every file
// given on the command line (folders are walked, in name order) through
// LLVMFuzzerTestOneInput, then a fixed number of deterministic mutations of each: bit flips,
// truncations, byte insertions and overwrites with interesting bytes, chunk deletion and
// duplication, and splices with another corpus file, from a fixed seed.
//
//   <target> [-mutations=N] [-seed=S] [-max_len=BYTES] [-artifact=PATH] FILE|DIR...
//
// Exits 0 when every input ran; 1 when an exception escaped the target (an unexpected kind:
// targets catch the expected ones), after writing the input to the artifact path (default
// ./fuzz-finding.bin). A crash dies by its signal, after writing the input there too.

#include <algorithm>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

/// SplitMix64: small, fast and the same on every platform.
class Random
{
public:
    explicit Random(std::uint64_t seed)
        : m_state(seed)
    {
    }
    std::uint64_t next()
    {
        std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, n); 0 when n is 0.
    std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }

private:
    std::uint64_t m_state;
};

/// Tokens that steer parsers of text formats into their less common branches.
constexpr std::string_view kTokens[] = {
    "\"", "{", "}", "[", "]", ":", ",", "\n", " ", ", ", ": ", "\\u", "\\", "-", "0", "1e308", "-1",
    "9223372036854775807", "18446744073709551616", "NaN", "null", "true", "\"ph\":\"X\"",
    "\"ph\":\"B\"", "\"ph\":\"E\"", "\"ph\":\"b\"", "\"ph\":\"s\"", "\"ph\":\"f\"",
    "\"ph\":\"C\"", "\"ph\":\"M\"", "\"ts\":", "\"dur\":", "\"pid\":", "\"tid\":", "\"id\":",
    "\"args\":{", "\"traceEvents\":[", "#Paraver", "EVENT_TYPE", "VALUES", "STATES",
    "STATES_COLOR", "DEFAULT_OPTIONS", "UNITS", "LEVEL", "SIZE", "(", ")", "_ns", "_s",
    "1:", "2:", "3:", "c:", "\x1f\x8b", "ST", std::string_view("\0", 1), "\xff", "\x80",
};

using Bytes = std::string;

void mutateOnce(Bytes& b, const std::vector<Bytes>& corpus, Random& rng, std::size_t maxLen)
{
    switch (rng.below(8)) {
    case 0:  // flip bits
        if (!b.empty()) {
            const std::size_t flips = 1 + rng.below(4);
            for (std::size_t i = 0; i < flips; ++i)
                b[rng.below(b.size())] ^= static_cast<char>(1u << rng.below(8));
        }
        break;
    case 1:  // truncate
        b.resize(rng.below(b.size() + 1));
        break;
    case 2:  // insert random bytes
    {
        const std::size_t at = rng.below(b.size() + 1);
        const std::size_t n = 1 + rng.below(8);
        Bytes ins;
        for (std::size_t i = 0; i < n; ++i)
            ins.push_back(static_cast<char>(rng.next()));
        b.insert(at, ins);
        break;
    }
    case 3:  // insert a token
        b.insert(rng.below(b.size() + 1), kTokens[rng.below(std::size(kTokens))]);
        break;
    case 4:  // overwrite a byte with an interesting value
        if (!b.empty()) {
            constexpr char kInteresting[] = {0, 1, 0x7f, '\x80', '\xff', '0', '9', ':', '\n'};
            b[rng.below(b.size())] = kInteresting[rng.below(sizeof kInteresting)];
        }
        break;
    case 5:  // delete a chunk
        if (!b.empty()) {
            const std::size_t at = rng.below(b.size());
            b.erase(at, 1 + rng.below(std::min<std::size_t>(b.size() - at, 64)));
        }
        break;
    case 6:  // duplicate a chunk
        if (!b.empty()) {
            const std::size_t at = rng.below(b.size());
            const std::size_t n = 1 + rng.below(std::min<std::size_t>(b.size() - at, 256));
            b.insert(rng.below(b.size() + 1), b.substr(at, n));
        }
        break;
    default:  // splice: a prefix of this input and a suffix of another corpus file
    {
        const Bytes& other = corpus[rng.below(corpus.size())];
        b = b.substr(0, rng.below(b.size() + 1)) + other.substr(rng.below(other.size() + 1));
        break;
    }
    }
    if (b.size() > maxLen)
        b.resize(maxLen);
}

// The input being run, for the crash handler (async-signal-safe: plain pointers and write()).
const char* g_current = nullptr;
std::size_t g_currentSize = 0;
std::string g_artifact = "fuzz-finding.bin";

void writeArtifact()
{
    const int fd = ::open(g_artifact.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return;
    std::size_t done = 0;
    while (done < g_currentSize) {
        const ssize_t n = ::write(fd, g_current + done, g_currentSize - done);
        if (n <= 0)
            break;
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
}

extern "C" void onCrash(int signal)
{
    constexpr char kMessage[] = "fuzz_driver: crash; the input is in the artifact file\n";
    (void)!::write(2, kMessage, sizeof kMessage - 1);
    writeArtifact();
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

/// Runs one input; false (after reporting) when an exception escaped the target.
bool runOne(const Bytes& input, const std::string& origin)
{
    g_current = input.data();
    g_currentSize = input.size();
    try {
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
        return true;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "fuzz_driver: %s: unexpected exception: %s\n", origin.c_str(),
                     error.what());
    } catch (...) {
        std::fprintf(stderr, "fuzz_driver: %s: unexpected exception of unknown type\n",
                     origin.c_str());
    }
    writeArtifact();
    std::fprintf(stderr, "fuzz_driver: input (%zu bytes) written to %s\n", input.size(),
                 g_artifact.c_str());
    return false;
}

Bytes readFile(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

int main(int argc, char** argv)
{
    std::size_t mutations = 100;
    std::uint64_t seed = 0x5742a7a;
    std::size_t maxLen = 64 * 1024;
    std::vector<fs::path> files;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (startsWith(arg, "-mutations="))
            mutations = std::stoull(std::string(arg.substr(11)));
        else if (startsWith(arg, "-seed="))
            seed = std::stoull(std::string(arg.substr(6)));
        else if (startsWith(arg, "-max_len="))
            maxLen = std::stoull(std::string(arg.substr(9)));
        else if (startsWith(arg, "-artifact="))
            g_artifact = std::string(arg.substr(10));
        else if (fs::is_directory(arg)) {
            std::vector<fs::path> found;
            for (const auto& entry : fs::recursive_directory_iterator(arg))
                if (entry.is_regular_file())
                    found.push_back(entry.path());
            std::sort(found.begin(), found.end());
            files.insert(files.end(), found.begin(), found.end());
        } else if (fs::is_regular_file(arg))
            files.emplace_back(arg);
        else {
            std::fprintf(stderr, "fuzz_driver: no such file or folder: %s\n", argv[i]);
            return 2;
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: %s [-mutations=N] [-seed=S] [-max_len=BYTES] "
                             "[-artifact=PATH] FILE|DIR...\n", argv[0]);
        return 2;
    }
    for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
        std::signal(s, onCrash);

    std::vector<Bytes> corpus;
    for (const auto& f : files)
        corpus.push_back(readFile(f));
    Random rng(seed);
    std::size_t runs = 0;
    for (std::size_t i = 0; i < corpus.size(); ++i) {
        const std::string name = files[i].filename().string();
        if (!runOne(corpus[i], name))
            return 1;
        ++runs;
        for (std::size_t m = 0; m < mutations; ++m) {
            Bytes mutant = corpus[i];
            const std::size_t steps = 1 + rng.below(3);
            for (std::size_t s = 0; s < steps; ++s)
                mutateOnce(mutant, corpus, rng, maxLen);
            if (!runOne(mutant, name + " mutation " + std::to_string(m)))
                return 1;
            ++runs;
        }
    }
    std::printf("fuzz_driver: %zu inputs from %zu files, no findings\n", runs, files.size());
    return 0;
}
