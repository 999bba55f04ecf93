// run/equilibrium_search.hpp: below β = −2/3 the regular triangle is stable (its transverse
// eigenvalue e^{−β/2}(1/2 + 3β/4) < 0, tests/verify/verify_equilibrium.cpp), so a search for n = 3
// there must find it beside one cluster, both certified stable, each once; above, the triangle is
// a saddle of index 2 and one cluster is the only stable equilibrium found.
#include <boost/test/unit_test.hpp>

#include "attnflow/run/equilibrium_search.hpp"

#include <cmath>


using namespace attnflow;

namespace {

const FoundEquilibrium* with_clusters(const EquilibriumSearch& s, const std::vector<int>& sizes) {
  for (const FoundEquilibrium& f : s.found)
    if (f.cluster_sizes == sizes) return &f;
  return nullptr;
}

/// The regular triangle: angles 0, 2π/3, 4π/3 (the first vertex at 0).
const FoundEquilibrium* regular_triangle(const EquilibriumSearch& s) {
  const double third = 2 * std::acos(-1.0) / 3;
  for (const FoundEquilibrium& f : s.found) {
    BOOST_TEST_MESSAGE("found " << f.stability << " (" << f.unstable_directions << "), angles " << f.angles[0] << " "
                                << f.angles[1] << " " << f.angles[2]);
    if (f.angles.size() == 3 && std::abs(f.angles[1] - third) < 1e-9 && std::abs(f.angles[2] - 2 * third) < 1e-9)
      return &f;
  }
  return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(equilibrium_search)

BOOST_AUTO_TEST_CASE(below_minus_two_thirds_the_triangle_is_found_stable) {
  const EquilibriumSearch s = search_circle_equilibria("usa-sphere", 3, -1.0, 6, 7);
  const FoundEquilibrium* triangle = regular_triangle(s);
  const FoundEquilibrium* cluster = with_clusters(s, {3});
  BOOST_REQUIRE(triangle);
  BOOST_REQUIRE(cluster);
  BOOST_TEST(triangle->stability == "stable");
  BOOST_TEST(cluster->stability == "stable");
  // Each equilibrium once (up to rotation, reflection and relabelling): the 15 starts reach far
  // fewer distinct equilibria than they certify.
  BOOST_TEST(static_cast<int>(s.found.size()) < s.certified);
  BOOST_TEST(s.found.size() <= 4u);
}

BOOST_AUTO_TEST_CASE(above_it_the_triangle_is_a_saddle) {
  const EquilibriumSearch s = search_circle_equilibria("sa-sphere", 3, 1.0, 6, 7);
  const FoundEquilibrium* triangle = regular_triangle(s);
  BOOST_REQUIRE(triangle);
  BOOST_TEST(triangle->stability == "unstable");
  BOOST_TEST(triangle->unstable_directions == 2);
  for (const FoundEquilibrium& f : s.found)
    if (f.stability == "stable") BOOST_TEST((f.cluster_sizes == std::vector<int>{3}));
}

BOOST_AUTO_TEST_SUITE_END()
