// TEMPORARY analysis tool (not a test).
#include <cstdio>
#include <cmath>
#include "mdtune/cost_model.h"
#include "mdtune/dataset.h"
using namespace mdtune;
int main(int argc, char** argv) {
    const Store store(argv[1], Store::Mode::ReadOnly);
    auto samples = load_samples(store);
    std::vector<const Sample*> ptrs;
    for (auto& s : samples) ptrs.push_back(&s);
    const CostFit fit = fit_cost(ptrs);
    std::printf("calibration %.3f\n", fit.calibration);
    for (std::size_t t = 0; t < cost_tasks().size(); ++t) {
        double se = 0, tot = 0; int n = 0;
        for (auto* s : ptrs) {
            auto it = s->timings.find(std::string(cost_tasks()[t].name));
            double meas = it == s->timings.end() ? 0 : it->second;
            double pred = fit.coefficients[t].dot(cost_terms(t, s->features));
            double total = 0; for (auto& [k, v] : s->timings) if (k != "total") total += v;
            se += std::pow((pred - meas) / total, 2); tot += meas / total; ++n;
        }
        std::printf("%-12s share %5.1f%%  rms err (of step) %5.1f%%  coefs:", std::string(cost_tasks()[t].name).c_str(), 100 * tot / n, 100 * std::sqrt(se / n));
        for (Eigen::Index k = 0; k < fit.coefficients[t].size(); ++k) if (fit.coefficients[t](k) > 0) std::printf(" %s=%.3g", cost_tasks()[t].terms[k].c_str(), fit.coefficients[t](k));
        std::printf("\n");
    }
    for (auto* s : ptrs) {
        double pred = fit.ms(s->features);
        if (std::abs(std::log(s->ms / pred)) > 0.15) std::printf("  off %.0f%%: %s %s meas %.3f pred %.3f\n", 100 * (pred / s->ms - 1), s->system.canonical().c_str(), s->config.canonical().c_str(), s->ms, pred);
    }
}
