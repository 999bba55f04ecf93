#pragma once
// A search for equilibria on the circle (sa-sphere or usa-sphere, Q = K = V = I) at one β: from
// random starts the flow is run toward what attracts it, and from others Newton's method goes to
// any equilibrium near it (saddles too); symmetric starts (k equal clusters on a regular k-gon)
// are tried as they are. Each candidate is certified (verify/equilibrium.hpp) and the distinct
// ones kept, with their index. It proves what it finds; it does not prove that nothing else exists.
#include "attnflow/io/wire.hpp"
#include "attnflow/verify/equilibrium.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow {

struct FoundEquilibrium {
  std::vector<double> angles;  // the vertices' angles, the first at 0, increasing (for the record)
  std::vector<int> cluster_sizes;  // tokens at each distinct point (within 1e-9), decreasing
  std::string stability;
  int unstable_directions = 0;
  bool index_exact = false;
  double radius = 0;  // the certified box's
  std::string how;    // the first start that reached it: "flow", "newton" or "symmetric"
};

struct EquilibriumSearch {
  std::string model;
  int n = 0;
  double beta = 0;
  int flow_starts = 0, newton_starts = 0, symmetric_starts = 0;
  int certified = 0;  // candidates certified (before removing repeats)
  std::vector<FoundEquilibrium> found;
};

// Their exact wire form (io/wire.hpp), for the searches shared out over threads and MPI ranks.
static_assert(sizeof(FoundEquilibrium) == 128, "FoundEquilibrium changed: list its new fields in wire_fields");
template <class A> void wire_fields(A& a, FoundEquilibrium& f) {
  a(f.angles, f.cluster_sizes, f.stability, f.unstable_directions, f.index_exact, f.radius, f.how);
}
static_assert(sizeof(EquilibriumSearch) == 88, "EquilibriumSearch changed: list its new fields in wire_fields");
template <class A> void wire_fields(A& a, EquilibriumSearch& s) {
  a(s.model, s.n, s.beta, s.flow_starts, s.newton_starts, s.symmetric_starts, s.certified, s.found);
}

/// `starts` random starts each for the flow (run to t = 200) and for Newton, seeded from `seed`,
/// plus the n symmetric starts.
EquilibriumSearch search_circle_equilibria(const std::string& model, int n, double beta, int starts, std::uint64_t seed);

nlohmann::json search_to_json(const EquilibriumSearch& s);

}  // namespace attnflow
