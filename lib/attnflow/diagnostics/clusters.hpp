#pragma once
// Single-linkage clusters at a threshold δ, with every merge judged against the working
// precision. The point is the Precision trap of THEORY.md: two tokens 1e-20 apart are one
// cluster at δ = 1e-6 either way, but in double the data cannot even tell them apart, while at
// 50 digits they are provably distinct. A result therefore never says just "one cluster": each
// merge is "separated at precision p" (distance above the resolution floor: distinct points,
// within δ) or "merged below precision p" (at or below the floor: the computation cannot
// resolve the pair).
#include "attnflow/diagnostics/numbers.hpp"
#include "attnflow/diagnostics/pairwise.hpp"
#include "attnflow/diagnostics/resolution.hpp"
#include "attnflow/trajectory.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace attnflow {

namespace detail {
/// Disjoint sets with path halving; unions keep the smaller root so roots are deterministic.
class UnionFind {
 public:
  explicit UnionFind(int n) : parent_(static_cast<std::size_t>(n)) { std::iota(parent_.begin(), parent_.end(), 0); }
  int find(int a) {
    while (parent_[a] != a) a = parent_[a] = parent_[parent_[a]];
    return a;
  }
  bool unite(int a, int b) {
    a = find(a), b = find(b);
    if (a == b) return false;
    if (b < a) std::swap(a, b);
    parent_[b] = a;
    return true;
  }

 private:
  std::vector<int> parent_;
};

inline std::string plural(long k, const char* one, const char* many) {
  return std::to_string(k) + " " + (k == 1 ? one : many);
}
}  // namespace detail

/// One single-linkage merge: the pair whose distance joined two groups.
template <class T> struct MergedPair {
  int i = 0, j = 0;  // i < j
  T distance = 0;
  double gap_over_floor = 0;     // distance / floor: how many floors apart the two tokens are
  bool below_precision = false;  // distance ≤ floor: the working precision cannot separate them

  nlohmann::json to_json() const {
    return {{"pair", {i, j}},
            {"distance", json_number(distance)},
            {"gap_over_floor", gap_over_floor},
            {"status", below_precision ? "merged-below-precision" : "separated-at-precision"}};
  }
};

struct ClusterOptions {
  DistanceMetric metric = DistanceMetric::Euclidean;
  double floor_factor = kDefaultFloorFactor;                         // c in c·eps·scale
  double error_estimate = std::numeric_limits<double>::quiet_NaN();  // per-coordinate, if known
};

template <class T> struct Clustering {
  T delta = 0;
  ResolutionFloor<T> floor;
  int count = 0;
  std::vector<int> labels;                // labels[i]: cluster of token i; clusters numbered by smallest member
  std::vector<std::vector<int>> members;  // members[c], increasing
  std::vector<MergedPair<T>> merges;      // the n − count single-linkage edges, by increasing distance
  int merges_below_precision = 0;
  int merges_separated = 0;
  long intra_pairs = 0;  // all pairs inside one cluster
  long intra_pairs_below_precision = 0;
  // Groups the working precision can tell apart (single linkage at the floor itself): an upper
  // limit on how many distinct points the data resolves.
  int distinguishable_groups = 0;
  // Pairs in different clusters that are nevertheless at or below the floor; only possible when
  // δ < floor, in which case the count at δ is not meaningful at this precision.
  long split_pairs_below_precision = 0;

  bool delta_below_floor() const { return delta <= floor.value; }

  std::string summary() const {
    const std::string p = floor.precision.name();
    std::string s = detail::plural(count, "cluster", "clusters") + " at δ=" + short_number(delta);
    if (merges.empty()) {
      s += fmt::format("; no pairs within δ (floor {} at precision {})", short_number(floor.value), p);
    }
    if (merges_below_precision > 0)
      s += "; " + detail::plural(merges_below_precision, "pair", "pairs") + " merged below precision " + p +
           " (floor " + short_number(floor.value) + ")";
    if (merges_separated > 0) {
      T smallest = 0;
      bool first = true;
      for (const auto& m : merges)
        if (!m.below_precision && (first || m.distance < smallest)) smallest = m.distance, first = false;
      s += "; " + detail::plural(merges_separated, "pair", "pairs") + " separated at precision " + p +
           " (smallest gap " + short_number(smallest) + ", floor " + short_number(floor.value) + ")";
    }
    if (split_pairs_below_precision > 0)
      s += "; warning: δ is below the floor, " + detail::plural(split_pairs_below_precision, "pair", "pairs") +
           " in different clusters cannot be resolved at precision " + p;
    return s;
  }

  nlohmann::json to_json() const {
    nlohmann::json m = nlohmann::json::array();
    for (const auto& e : merges) m.push_back(e.to_json());
    return {{"delta", json_number(delta)},
            {"metric", metric_name(floor.metric)},
            {"count", count},
            {"labels", labels},
            {"members", members},
            {"floor", floor.to_json()},
            {"merges", m},
            {"merges_below_precision", merges_below_precision},
            {"merges_separated", merges_separated},
            {"intra_pairs", intra_pairs},
            {"intra_pairs_below_precision", intra_pairs_below_precision},
            {"distinguishable_groups", distinguishable_groups},
            {"split_pairs_below_precision", split_pairs_below_precision},
            {"delta_below_floor", delta_below_floor()},
            {"summary", summary()}};
  }
};

/// Single-linkage clustering of the tokens x at threshold δ (pairs at distance ≤ δ are linked).
/// The precision is read from the data (MPFR values carry their digits).
template <class T> Clustering<T> cluster_tokens(const Tokens<T>& x, const T& delta, const ClusterOptions& opt = {}) {
  const int n = static_cast<int>(x.rows());
  const Matrix<T> D = pairwise_distances(x, opt.metric);
  Clustering<T> c;
  c.delta = delta;
  c.floor = distance_floor(x, opt.metric, precision_of_tokens(x), opt.error_estimate, opt.floor_factor);
  const T& fl = c.floor.value;

  // Kruskal on the pairs within δ; ties broken by index so the merge list is deterministic.
  std::vector<std::tuple<T, int, int>> edges;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (D(i, j) <= delta) edges.emplace_back(D(i, j), i, j);
  std::sort(edges.begin(), edges.end());
  detail::UnionFind at_delta(n);
  for (const auto& [dist, i, j] : edges) {
    if (!at_delta.unite(i, j)) continue;
    MergedPair<T> m;
    m.i = i, m.j = j, m.distance = dist;
    m.below_precision = dist <= fl;
    m.gap_over_floor = fl > 0 ? to_double(T(dist / fl)) : (dist > 0 ? std::numeric_limits<double>::infinity() : 0.0);
    (m.below_precision ? c.merges_below_precision : c.merges_separated)++;
    c.merges.push_back(m);
  }

  // Canonical labels: cluster k is the one whose smallest member is the k-th smallest.
  c.labels.assign(static_cast<std::size_t>(n), -1);
  std::vector<int> label_of_root(static_cast<std::size_t>(n), -1);
  for (int i = 0; i < n; ++i) {
    int& l = label_of_root[at_delta.find(i)];
    if (l < 0) {
      l = c.count++;
      c.members.emplace_back();
    }
    c.labels[i] = l;
    c.members[l].push_back(i);
  }

  detail::UnionFind at_floor(n);
  int groups = n;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      const bool same = c.labels[i] == c.labels[j];
      const bool unresolved = D(i, j) <= fl;
      if (same) ++c.intra_pairs;
      if (same && unresolved) ++c.intra_pairs_below_precision;
      if (!same && unresolved) ++c.split_pairs_below_precision;
      if (unresolved && at_floor.unite(i, j)) --groups;
    }
  c.distinguishable_groups = groups;
  return c;
}

/// Clusters of sample k of a trajectory, judged with the trajectory's error estimate.
template <class T> Clustering<T> cluster_sample(const Trajectory<T>& traj, std::size_t k, const T& delta,
                                                DistanceMetric metric = DistanceMetric::Euclidean,
                                                double floor_factor = kDefaultFloorFactor) {
  return cluster_tokens(traj.x.at(k), delta, ClusterOptions{metric, floor_factor, traj.error_estimate});
}

/// Cluster count at every sample, with how many merges at each sample are below precision.
template <class T> struct ClusterCountSeries {
  T delta = 0;
  DistanceMetric metric = DistanceMetric::Euclidean;
  std::vector<T> t;
  std::vector<int> count;
  std::vector<int> merges_below_precision;
  std::vector<int> distinguishable_groups;
  std::vector<T> floor;
  std::string final_summary;  // the last sample's Clustering::summary()

  nlohmann::json to_json() const {
    return {{"delta", json_number(delta)},
            {"metric", metric_name(metric)},
            {"t", json_numbers(t)},
            {"count", count},
            {"merges_below_precision", merges_below_precision},
            {"distinguishable_groups", distinguishable_groups},
            {"floor", json_numbers(floor)},
            {"final_summary", final_summary}};
  }
};

template <class T> ClusterCountSeries<T> cluster_counts(const Trajectory<T>& traj, const T& delta,
                                                        DistanceMetric metric = DistanceMetric::Euclidean,
                                                        double floor_factor = kDefaultFloorFactor) {
  ClusterCountSeries<T> s;
  s.delta = delta;
  s.metric = metric;
  s.t = traj.t;
  for (std::size_t k = 0; k < traj.x.size(); ++k) {
    const Clustering<T> c = cluster_sample(traj, k, delta, metric, floor_factor);
    s.count.push_back(c.count);
    s.merges_below_precision.push_back(c.merges_below_precision);
    s.distinguishable_groups.push_back(c.distinguishable_groups);
    s.floor.push_back(c.floor.value);
    if (k + 1 == traj.x.size()) s.final_summary = c.summary();
  }
  return s;
}

}  // namespace attnflow
