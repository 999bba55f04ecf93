// attnflow atlas [--out DIR] [--starts N] [--seed S] [--max-n N]  → DIR/atlas.json
// The circle's equilibrium atlas (Q = K = V = I, SA and USA): the stability thresholds in
// β ∈ [−30, 5] of the regular n-gon, n = 3 … 9, and of its neighbours, k equal clusters on the regular
// k-gon (k dividing n) and two antipodal clusters of unequal sizes, each certified to 1e-10
// (verify/polygon_continuation.hpp);
// and a search of the open window β ∈ (−2/3, −0.16) for n = 3 … 8 — where synchronization from
// generic starts is neither proved nor refuted (Polyanskiy–Rigollet–Yao) — for stable equilibria
// other than one cluster (run/equilibrium_search.hpp). The search proves what it finds, not that
// nothing else exists. Exit codes: 0 the atlas ran, 2 bad input.
#include "attnflow/config/sim_config.hpp"
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/run/ensemble.hpp"
#include "attnflow/run/equilibrium_search.hpp"
#include "attnflow/verify/decimal17.hpp"
#include "attnflow/verify/polygon_continuation.hpp"
#include "cli/commands.hpp"
#include "cli/mpi_job.hpp"

#include <fmt/format.h>
#include <iostream>

namespace attnflow::cli {

namespace {

struct AtlasOptions {
  std::string out = "out/atlas";
  int starts = 10;
  std::uint64_t seed = 2025;
  int max_n = 9;
};

constexpr double kFrom = -30, kTo = 5, kStep = 0.05, kTolerance = 1e-10;
const std::vector<double> kWindowBetas = {-0.6, -0.5, -0.4, -0.3, -0.2};
const std::vector<std::string> kModels = {"usa-sphere", "sa-sphere"};

int run(const AtlasOptions& o) {
  // The polygons and their neighbours, k equal clusters on the regular k-gon (k dividing n; two
  // antipodal clusters among them): one task per (model, n, k).
  struct Polygon {
    std::string model;
    int n, clusters;
    int first = 0;  // two antipodal clusters of first and n − first tokens
  };
  std::vector<Polygon> polygons;
  for (const std::string& m : kModels)
    for (int n = 3; n <= o.max_n; ++n)
      for (int k = n; k >= 2; --k)
        if (n % k == 0) polygons.push_back({m, n, k});
  // And two antipodal clusters of unequal sizes (the equal ones are k = 2 above).
  for (const std::string& m : kModels)
    for (int n = 3; n <= o.max_n; ++n)
      for (int a = 1; 2 * a < n; ++a) polygons.push_back({m, n, 2, a});
  const auto continued = run_instances<verify::PolygonContinuation>(static_cast<long>(polygons.size()), [&](long k) {
    const Polygon& p = polygons[static_cast<std::size_t>(k)];
    const verify::ProveInstance in = verify::regular_polygon_instance(p.model, p.n, "1");
    return p.first > 0 ? verify::continue_antipodal_clusters(in, p.first, kFrom, kTo, kStep, kTolerance)
                       : verify::continue_polygon(in, kFrom, kTo, kStep, kTolerance, p.clusters);
  });
  nlohmann::json thresholds = nlohmann::json::array();
  int certified = 0, transversal = 0;
  for (const verify::PolygonContinuation& c : continued) {
    certified += static_cast<int>(c.thresholds.size());
    for (const verify::Threshold& t : c.thresholds) transversal += t.transversal;
    nlohmann::json j = verify::continuation_to_json(c);
    j.erase("scan");
    thresholds.push_back(j);
    std::cout << (c.first_cluster > 0
                      ? fmt::format("attnflow: antipodal clusters of {} and {}, {}: {} threshold(s) in [{}, {}]\n",
                                    c.first_cluster, c.n - c.first_cluster, c.model, c.thresholds.size(), kFrom, kTo)
                  : c.clusters == c.n
                      ? fmt::format("attnflow: regular {}-gon, {}: {} threshold(s) in [{}, {}]\n", c.n, c.model,
                                    c.thresholds.size(), kFrom, kTo)
                      : fmt::format("attnflow: {} clusters of {} on the regular {}-gon, {}: {} threshold(s) in [{}, {}]{}\n",
                                    c.clusters, c.n / c.clusters, c.clusters, c.model, c.thresholds.size(), kFrom, kTo,
                                    c.thresholds.empty() && !c.scan.empty() && c.scan.front().decided
                                        ? fmt::format(" (index {} throughout)", c.scan.front().index)
                                        : ""));
    for (const verify::Threshold& t : c.thresholds)
      std::cout << fmt::format("attnflow:   beta in [{:.12f}, {:.12f}]: index {} -> {}; {}\n", t.lo, t.hi,
                               t.index_below, t.index_above, verify::crossing_summary(t));
  }
  // The window: one task per (model, n, beta).
  struct Task {
    std::string model;
    int n;
    double beta;
  };
  std::vector<Task> tasks;
  for (const std::string& m : kModels)
    for (int n = 3; n <= std::min(8, o.max_n); ++n)
      for (double b : kWindowBetas) tasks.push_back({m, n, b});
  const auto searched = run_instances<EquilibriumSearch>(static_cast<long>(tasks.size()), [&](long k) {
    const Task& t = tasks[static_cast<std::size_t>(k)];
    return search_circle_equilibria(t.model, t.n, t.beta, o.starts, o.seed ^ static_cast<std::uint64_t>(k));
  });
  nlohmann::json searches = nlohmann::json::array(), stable_others = nlohmann::json::array(),
                 undecided_others = nlohmann::json::array();
  int distinct = 0;
  for (const EquilibriumSearch& s : searched) {
    searches.push_back(search_to_json(s));
    distinct += static_cast<int>(s.found.size());
    for (const FoundEquilibrium& f : s.found) {
      if (f.cluster_sizes.size() < 2) continue;
      const nlohmann::json where = {
          {"model", s.model}, {"n", s.n}, {"beta", verify::g17(s.beta)}, {"cluster_sizes", f.cluster_sizes}};
      if (f.stability == "stable") stable_others.push_back(where);
      // Not proved unstable: a stable one is not excluded there.
      if (f.stability == "undecided") undecided_others.push_back(where);
    }
  }
  const nlohmann::json atlas = {
      {"kind", "attnflow-atlas"},
      {"polygon_thresholds", thresholds},
      {"thresholds_certified", certified},
      {"thresholds_transversal", transversal},
      {"window_search",
       {{"window", "beta in (-2/3, -0.16): synchronization from generic starts neither proved nor refuted"},
        {"betas", kWindowBetas},
        {"starts_per_search", {{"flow", o.starts}, {"newton", o.starts}, {"symmetric", "n"}}},
        {"seed", o.seed},
        {"coverage", "every equilibrium listed is certified (Krawczyk, with its index); the search does not prove "
                     "that no other equilibrium exists"},
        {"searches", searches},
        {"stable_other_than_one_cluster", stable_others},
        {"undecided_other_than_one_cluster", undecided_others}}}};
  if (!this_process_speaks()) return 0;  // under mpirun rank 0 writes, the others computed beside it
  write_file_atomically(o.out + "/atlas.json", atlas.dump(1) + "\n");
  std::cout << fmt::format("attnflow: {} thresholds certified, {} of them proved transversal (one crossing, the "
                           "derivative in beta enclosed away from 0)\n",
                           certified, transversal);
  std::cout << fmt::format(
      "attnflow: window beta in (-2/3, -0.16), n = 3 ... {}: {} searches, {} distinct certified equilibria; stable "
      "ones other than one cluster: {}; of undecided stability: {}\n",
      std::min(8, o.max_n), searched.size(), distinct, stable_others.empty() ? "none found" : stable_others.dump(),
      undecided_others.empty() ? "none" : undecided_others.dump());
  std::cout << "attnflow: wrote " << o.out << "/atlas.json\n";
  return 0;
}

}  // namespace

void register_atlas(CLI::App& app) {
  auto o = std::make_shared<AtlasOptions>();
  auto* sub = app.add_subcommand("atlas",
                                 "the circle's equilibria: the stability thresholds of the regular polygons (n = 3 ... 9) and their neighbours, and a "
                                 "search of the window beta in (-2/3, -0.16) → DIR/atlas.json");
  sub->add_option("--out", o->out, "output directory")->check(non_empty_path())->capture_default_str();
  sub->add_option("--starts", o->starts, "random starts per search, for the flow and for Newton each")
      ->check(CLI::Range(0, 10000))
      ->capture_default_str();
  sub->add_option("--seed", o->seed, "seed of the random starts")->check(seed_value())->capture_default_str();
  sub->add_option("--max-n", o->max_n, "largest n (the polygons to 9, the search to 8 at most)")
      ->check(CLI::Range(3, 9))
      ->capture_default_str();
  add_command(sub, [o] { return run(*o); });
}

}  // namespace attnflow::cli
