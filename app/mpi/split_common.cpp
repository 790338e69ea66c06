#include "app/mpi/split_common.h"

#include <cmath>

namespace strata::app::mpi {

std::vector<int> dealNodes(
    const std::vector<std::int64_t>& weights, const std::vector<bool>& cuttable, int ranks)
{
    const int nodes = static_cast<int>(weights.size());
    std::vector<std::int64_t> before(weights.size() + 1, 0);  // weight of the nodes before c
    for (std::size_t c = 0; c < weights.size(); ++c)
        before[c + 1] = before[c] + weights[c];
    // Cut k: the allowed cut after the previous one nearest to k / ranks of the weight.
    std::vector<int> first { 0 };
    for (int k = 1; k < ranks; ++k) {
        const double target = static_cast<double>(before.back()) * k / ranks;
        int best = -1;
        for (int c = first.back() + 1; c < nodes; ++c) {
            const auto far = [&](int at) {
                return std::abs(static_cast<double>(before[static_cast<std::size_t>(at)]) - target);
            };
            if (cuttable[static_cast<std::size_t>(c)] && (best < 0 || far(c) < far(best)))
                best = c;
        }
        if (best < 0)
            break;
        first.push_back(best);
    }
    while (static_cast<int>(first.size()) <= ranks)
        first.push_back(nodes);
    return first;
}

}  // namespace strata::app::mpi
