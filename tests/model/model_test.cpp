#include "model/lod_grid.h"
#include "model/resource_tree.h"
#include "model/role.h"
#include "model/string_table.h"

#include <catch2/catch.hpp>

#include <bit>

using namespace strata::model;

TEST_CASE("strings are interned once with stable ids, 0 being the empty string", "[strings]")
{
    StringTable table;
    CHECK(table.text(kEmptyString).empty());
    const StringId a = table.intern("aten::mm");
    const StringId b = table.intern("ncclKernel");
    CHECK(a != b);
    CHECK(table.intern(std::string("aten::mm")) == a);
    CHECK(table.text(b) == "ncclKernel");
    StringId found = 0;
    CHECK(table.find("ncclKernel", found));
    CHECK(found == b);
    CHECK_FALSE(table.find("missing", found));
    for (int i = 0; i < 10000; ++i)
        table.intern("s" + std::to_string(i));
    CHECK(table.text(a) == "aten::mm");  // views survive growth
}

TEST_CASE("roles come from names and categories the way profilers write them", "[roles]")
{
    CHECK(classifyRole("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "kernel") == Role::Comm);
    CHECK(classifyRole("c10d::allreduce_", "cpu_op") == Role::Comm);
    CHECK(classifyRole("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy") == Role::Transfer);
    CHECK(classifyRole("cudaStreamSynchronize", "cuda_runtime") == Role::Sync);
    CHECK(classifyRole("cudaLaunchKernel", "cuda_runtime") == Role::Runtime);
    CHECK(classifyRole("ampere_sgemm_128x64_tn", "kernel") == Role::Useful);
    CHECK(classifyRole("aten::linear", "cpu_op") == Role::Useful);
    // Nsight Systems names: driver API, memset, OS runtime calls.
    CHECK(classifyRole("cuLaunchKernel", "cuda_driver") == Role::Runtime);
    CHECK(classifyRole("cuCtxSynchronize", "cuda_driver") == Role::Sync);
    CHECK(classifyRole("cudaDeviceSynchronize", "cuda_runtime") == Role::Sync);
    CHECK(classifyRole("Memset", "gpu_memset") == Role::Transfer);
    CHECK(classifyRole("ncclKernel_AllGather_RING_LL_Sum_int8_t", "kernel") == Role::Comm);
    CHECK(classifyRole("poll", "osrt") == Role::Sync);
    CHECK(classifyRole("pthread_cond_timedwait", "osrt") == Role::Sync);
    CHECK(classifyRole("ioctl", "osrt") == Role::Runtime);
    CHECK(classifyRole("write", "osrt") == Role::Runtime);
    // Kineto's GPU-side synchronizations (HTA's AlexNet trace) are waits, not compute.
    CHECK(classifyRole("Stream Sync", "cuda_sync") == Role::Sync);
    CHECK(classifyRole("Context Sync", "cuda_sync") == Role::Sync);
    for (Role r : kAllRoles)
        CHECK(parseRole(roleName(r)) == r);
    CHECK_FALSE(parseRole("busy"));
}

TEST_CASE("the resource tree keeps parents before children and orders siblings", "[resources]")
{
    ResourceTree tree;
    const TrackId node = tree.add(kNoTrack, ResourceKind::Node, "node 0");
    const TrackId rank = tree.add(node, ResourceKind::Process, "rank 0");
    const TrackId t2 = tree.add(rank, ResourceKind::Thread, "worker", 2);
    const TrackId t1 = tree.add(rank, ResourceKind::Thread, "main", 1);
    CHECK(tree.children(rank) == std::vector<TrackId>{t1, t2});
    CHECK(tree.path(t2) == "node 0/rank 0/worker");
    CHECK(tree.findChild(rank, ResourceKind::Thread, "main") == t1);
    CHECK_FALSE(tree.findChild(rank, ResourceKind::Stream, "main"));
    CHECK_THROWS(tree.add(99, ResourceKind::Thread, "orphan"));
    for (ResourceKind k : {ResourceKind::Node, ResourceKind::Gpu, ResourceKind::Counter})
        CHECK(parseResourceKind(resourceKindName(k)) == k);
}

TEST_CASE("the LOD grid nests buckets by the factor and bands durations", "[lod]")
{
    const LodGrid grid = LodGrid::forSpan(10 * kNsPerS);
    CHECK(grid.tileNs(grid.levels) >= 10 * kNsPerS);
    CHECK(grid.tileNs(grid.levels - 1) < 10 * kNsPerS);
    for (int k = 1; k < grid.levels; ++k)
        CHECK(grid.bucketNs(k + 1) == grid.bucketNs(k) * 4);
    CHECK(grid.bandOf(0) == 0);
    CHECK(grid.bandOf(grid.bucketNs(1) - 1) == 0);
    CHECK(grid.bandOf(grid.bucketNs(1)) == 1);
    CHECK(grid.bandOf(grid.bucketNs(3) + 5) == 3);
    CHECK(grid.bandOf(INT64_MAX / 2) == grid.levels);
    // bandOf counts the bands at once; it must agree with the definition (a loop over the
    // levels) at every band border, for factors and bases other than the default too.
    for (const int factorLog2 : { 1, 2, 3 }) {
        for (const TimeNs base : { TimeNs(256), TimeNs(1000), TimeNs(1) }) {
            for (const int levels : { 1, 5, 22 }) {
                LodGrid g;
                g.baseBucketNs = base;
                g.factorLog2 = factorLog2;
                g.levels = levels;
                // Only grids whose widths fit (the loop overflows on the others).
                if (std::bit_width(std::uint64_t(base)) + factorLog2 * (levels - 1) > 61)
                    continue;
                for (int k = 1; k <= levels + 1 && g.bucketNs(k) < INT64_MAX / 4; ++k) {
                    for (const TimeNs d : { g.bucketNs(k) - 1, g.bucketNs(k), g.bucketNs(k) + 1,
                             2 * g.bucketNs(k) + 3 }) {
                        INFO("f=" << factorLog2 << " base=" << base << " levels=" << levels
                                  << " d=" << d);
                        CHECK(g.bandOf(d) == g.bandByLoop(d));
                    }
                }
                CHECK(g.bandOf(INT64_MAX) == g.bandByLoop(INT64_MAX));
            }
        }
    }
    // The coarsest level no wider than a pixel.
    CHECK(grid.levelFor(grid.bucketNs(1) - 1.0) == 0);
    CHECK(grid.levelFor(static_cast<double>(grid.bucketNs(2))) == 2);
    CHECK(grid.levelFor(grid.bucketNs(2) * 3.9) == 2);
    CHECK(grid.levelFor(1e30) == grid.levels);
    CHECK(floorDiv(-1, 256) == -1);
    CHECK(floorDiv(255, 256) == 0);
    // Powers of two take a shift: it must floor as the division does, negatives included.
    for (const std::int64_t b :
        std::initializer_list<std::int64_t> { 1, 2, 256, 1000, 1024, 3, std::int64_t(1) << 50 }) {
        for (const std::int64_t a : { std::int64_t(0), std::int64_t(1), std::int64_t(-1), b - 1, b,
                 -b, -b - 1, -b + 1, 5 * b + 3, -5 * b - 3, INT64_MAX, INT64_MIN + 1 }) {
            INFO(a << " / " << b);
            const std::int64_t q = a / b;
            CHECK(floorDiv(a, b) == ((a % b != 0 && a < 0) ? q - 1 : q));
        }
    }
    CHECK(grid.bucketOf(-5, 1) == -1);
}
