// Fuzz target: the Nsight Compute CSV importer, alone and joined to a small trace of
// kernels (names, streams, correlation IDs) through a KernelRecorder. InputError is the
// expected outcome of bad input, anything else escaping is a finding.

#include "storage/import/common/kernel_recorder.h"
#include "storage/import/ncu/ncu_importer.h"
#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"

#include "tests/fuzz/fuzz_support.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace strata;
    static fuzz::TempFile file(".ncu.csv");
    const auto& path = file.write(fuzz::asView(data, size));
    try {
        storage::MemoryTrace trace;
        (void)storage::importNcuCsv(path, trace);
    } catch (const storage::InputError&) {}
    try {
        storage::MemoryTrace memory;
        storage::KernelRecorder recorder(memory);
        const auto gpu = recorder.addTrack(model::kNoTrack, model::ResourceKind::Gpu, "GPU 0");
        const auto stream = recorder.addTrack(gpu, model::ResourceKind::Stream, "stream 7", 7);
        const char* names[] = { "k", "void gemm<float, 128>(const float *, float *, int)",
            "_Z4gemmIfEvPf" };
        for (int i = 0; i < 6; ++i) {
            const std::string args =
                "{\"correlation\": " + std::to_string(100 + i) + ", \"grid\": [64, 1, 1]}";
            recorder.addInterval(stream,
                { i * 100, i * 100 + 50, recorder.intern(names[i % 3]), recorder.intern("kernel") },
                args);
        }
        (void)storage::importNcuCsv(path, recorder, &recorder.kernels());
    } catch (const storage::InputError&) {}
    return 0;
}
