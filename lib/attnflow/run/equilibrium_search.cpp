#include "attnflow/run/equilibrium_search.hpp"

#include "attnflow/random.hpp"
#include "attnflow/run/simulate.hpp"
#include "attnflow/seeds.hpp"
#include "attnflow/verify/decimal17.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace attnflow {

namespace {

const double kTwoPi = 2 * std::acos(-1.0);

nlohmann::json circle_config(const std::string& model, int n, double beta, const std::vector<double>& angles) {
  nlohmann::json points = nlohmann::json::array();
  for (double a : angles) points.push_back({verify::g17(std::cos(a)), verify::g17(std::sin(a))});
  return {{"model", model}, {"n", n}, {"d", 2}, {"beta", verify::g17(beta)},
          {"init", {{"kind", "explicit"}, {"points", points}}},
          {"time", {{"t_end", 200}, {"samples", 2}}}, {"rtol", "1e-10"}, {"atol", "1e-12"}};
}

/// Angles of a certified centre: the first at 0, then sorted in [0, 2π).
std::vector<double> canonical_angles(const std::vector<double>& centre, int n) {
  const double first = std::atan2(centre[1], centre[0]);
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    double a = std::atan2(centre[static_cast<std::size_t>(2 * i + 1)], centre[static_cast<std::size_t>(2 * i)]) - first;
    a = std::fmod(a + 2 * kTwoPi, kTwoPi);
    if (a > kTwoPi - 1e-12) a = 0;
    out.push_back(a);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The sorted pairwise inner products, rounded: the same for a rotation, reflection or relabelling.
std::vector<long> signature(const std::vector<double>& angles) {
  std::vector<long> s;
  for (std::size_t i = 0; i < angles.size(); ++i)
    for (std::size_t j = i + 1; j < angles.size(); ++j) s.push_back(std::lround(std::cos(angles[i] - angles[j]) * 1e6));
  std::sort(s.begin(), s.end());
  return s;
}

std::vector<int> clusters(const std::vector<double>& angles) {
  std::vector<int> sizes;
  std::vector<bool> used(angles.size(), false);
  for (std::size_t i = 0; i < angles.size(); ++i) {
    if (used[i]) continue;
    int size = 0;
    for (std::size_t j = i; j < angles.size(); ++j)
      if (!used[j] && 1 - std::cos(angles[i] - angles[j]) < 1e-9) used[j] = true, ++size;
    sizes.push_back(size);
  }
  std::sort(sizes.rbegin(), sizes.rend());
  return sizes;
}

}  // namespace

EquilibriumSearch search_circle_equilibria(const std::string& model, int n, double beta, int starts, std::uint64_t seed) {
  EquilibriumSearch out;
  out.model = model;
  out.n = n;
  out.beta = beta;
  SeededDraws draws(mix_seed(seed));
  std::vector<std::pair<std::string, std::vector<double>>> candidates;  // how, angles of the start
  for (int s = 0; s < starts; ++s) {
    std::vector<double> a(static_cast<std::size_t>(n));
    for (double& x : a) x = draws.uniform(0, kTwoPi);
    candidates.emplace_back("flow", a);
    for (double& x : a) x = draws.uniform(0, kTwoPi);
    candidates.emplace_back("newton", a);
  }
  for (int k = 1; k <= n; ++k) {  // k equal clusters on a regular k-gon, tokens dealt round
    std::vector<double> a;
    for (int i = 0; i < n; ++i) a.push_back(kTwoPi * (i % k) / k);
    candidates.emplace_back("symmetric", a);
  }
  std::map<std::vector<long>, std::size_t> seen;
  const verify::ProveInstance in =
      verify::circle_instance(parse_sim_config(circle_config(model, n, beta, candidates.front().second)));
  for (const auto& [how, angles] : candidates) {
    std::vector<double> start = angles;
    if (how == "flow") {
      ++out.flow_starts;
      const Trajectory<double> tr = simulate<double>(parse_sim_config(circle_config(model, n, beta, angles)));
      for (int i = 0; i < n; ++i) start[static_cast<std::size_t>(i)] = std::atan2(tr.x.back()(i, 1), tr.x.back()(i, 0));
    } else if (how == "newton") {
      ++out.newton_starts;
    } else {
      ++out.symmetric_starts;
    }
    std::vector<double> guess;
    for (double a : start) guess.push_back(std::cos(a)), guess.push_back(std::sin(a));
    verify::EquilibriumResult r = verify::certify_circle_equilibrium(in, guess, std::numeric_limits<double>::infinity());
    if (!r.proved) continue;
    ++out.certified;
    const std::vector<double> canon = canonical_angles(r.centre, n);
    if (!r.index_exact) {
      // A Gershgorin part met 0: the approximate eigenvectors of that box were poor (coincident
      // tokens give repeated eigenvalues). The same equilibrium proved again from its canonical
      // angles (another slice, another box) may decide; the better-decided proof is kept.
      std::vector<double> again;
      for (double a : canon) again.push_back(std::cos(a)), again.push_back(std::sin(a));
      const verify::EquilibriumResult second = verify::certify_circle_equilibrium(in, again);
      if (second.proved && second.index_exact) r = second;
    }
    const auto key = signature(canon);
    if (seen.count(key)) continue;
    seen[key] = out.found.size();
    out.found.push_back({canon, clusters(canon), r.stability, r.unstable_directions, r.index_exact, r.radius, how});
  }
  std::sort(out.found.begin(), out.found.end(), [](const FoundEquilibrium& a, const FoundEquilibrium& b) {
    return a.cluster_sizes != b.cluster_sizes ? a.cluster_sizes > b.cluster_sizes : a.angles < b.angles;
  });
  return out;
}

nlohmann::json search_to_json(const EquilibriumSearch& s) {
  nlohmann::json found = nlohmann::json::array();
  for (const FoundEquilibrium& f : s.found) {
    std::vector<std::string> angles;
    for (double a : f.angles) angles.push_back(verify::g17(a));
    found.push_back({{"angles", angles},
                     {"cluster_sizes", f.cluster_sizes},
                     {"stability", f.stability},
                     {"unstable_directions", f.unstable_directions},
                     {"index_exact", f.index_exact},
                     {"box_radius", verify::g17(f.radius)},
                     {"first_reached_by", f.how}});
  }
  return {{"model", s.model},
          {"n", s.n},
          {"beta", verify::g17(s.beta)},
          {"starts", {{"flow", s.flow_starts}, {"newton", s.newton_starts}, {"symmetric", s.symmetric_starts}}},
          {"certified_candidates", s.certified},
          {"distinct_equilibria", found}};
}

}  // namespace attnflow
