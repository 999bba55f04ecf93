// Convex-hull diagnostics against known answers: volumes of cubes and simplices, vertex sets
// (Qhull's and the exact certificates'), degenerate inputs, Hausdorff distances, diameter, width.
#include <boost/test/unit_test.hpp>

#include "attnflow/diagnostics/hull.hpp"
#include "attnflow/errors.hpp"

#include <cmath>

using namespace attnflow;

namespace {

/// The 2^d corners of [lo, hi]^d; corner i has coordinate k equal to hi when bit k of i is set.
Tokens<double> cube_corners(int d, double lo = 0, double hi = 1) {
  Tokens<double> x(1 << d, d);
  for (int i = 0; i < (1 << d); ++i)
    for (int k = 0; k < d; ++k) x(i, k) = (i >> k) & 1 ? hi : lo;
  return x;
}

/// 0, e_1, …, e_d: volume 1/d!.
Tokens<double> standard_simplex(int d) {
  Tokens<double> x = Tokens<double>::Zero(d + 1, d);
  for (int k = 0; k < d; ++k) x(k + 1, k) = 1;
  return x;
}

Tokens<double> append_row(const Tokens<double>& x, const Vector<double>& p) {
  Tokens<double> y(x.rows() + 1, x.cols());
  y.topRows(x.rows()) = x;
  y.row(x.rows()) = p.transpose();
  return y;
}

double factorial(int d) { return d <= 1 ? 1.0 : d * factorial(d - 1); }

}  // namespace

BOOST_AUTO_TEST_SUITE(diagnostics_hull)

BOOST_AUTO_TEST_CASE(unit_cube_volume_vertices_facets) {
  for (int d : {2, 3, 4}) {
    BOOST_TEST_CONTEXT("d = " << d) {
      const HullResult h = convex_hull(cube_corners(d));
      BOOST_TEST(to_string(h.status) == std::string("ok"));
      BOOST_TEST(h.computed_in == "double (Qhull)");
      BOOST_TEST(h.affine_dimension == d);
      BOOST_TEST(std::abs(h.volume - 1.0) <= 1e-12);
      BOOST_TEST(h.facet_count == 2 * d);  // coplanar triangles merged into the cube's faces
      BOOST_TEST(h.vertices.size() == std::size_t(1) << d);
      for (std::size_t i = 0; i < h.vertices.size(); ++i) BOOST_TEST(h.vertices[i] == static_cast<int>(i));
    }
  }
}

BOOST_AUTO_TEST_CASE(simplex_volume_is_one_over_d_factorial) {
  for (int d : {2, 3, 4, 5}) {
    BOOST_TEST_CONTEXT("d = " << d) {
      const HullResult h = convex_hull(standard_simplex(d));
      BOOST_TEST(std::abs(h.volume - 1.0 / factorial(d)) <= 1e-12);
      BOOST_TEST(h.facet_count == d + 1);
      BOOST_TEST(h.vertices.size() == static_cast<std::size_t>(d + 1));
    }
  }
  // Same answer through the multiprecision front end (rank in MPFR, hull in double).
  MpfrDigitsScope digits(50);
  const HullResult h = convex_hull(convert_tokens<mpfr>(standard_simplex(3)));
  BOOST_TEST(std::abs(h.volume - 1.0 / 6.0) <= 1e-12);
}

BOOST_AUTO_TEST_CASE(cube_vertices_and_interior_point_certified_both_ways) {
  const int d = 3;
  Vector<double> interior(d);
  interior << 0.3, 0.6, 0.2;
  const Tokens<double> x = append_row(cube_corners(d), interior);  // index 8 is interior
  const HullResult h = convex_hull(x);
  BOOST_TEST(h.vertices.size() == 8u);
  BOOST_TEST((std::find(h.vertices.begin(), h.vertices.end(), 8) == h.vertices.end()));

  const std::vector<VertexCertificate> certs = certify_vertices(x);
  for (int i = 0; i < 8; ++i) {
    BOOST_TEST_CONTEXT("corner " << i) {
      BOOST_TEST(to_string(certs[i].classification) == std::string("vertex"));
      BOOST_TEST((certs[i].evidence == VertexCertificate::Evidence::SeparatingHyperplane));
      BOOST_TEST(verify_vertex_certificate(x, Vector<double>(x.row(i).transpose()), certs[i]));
    }
  }
  const VertexCertificate& in = certs[8];
  BOOST_TEST(to_string(in.classification) == std::string("not-vertex"));
  BOOST_TEST((in.evidence == VertexCertificate::Evidence::ConvexCombination));
  BOOST_TEST(sgn(in.weights[8]) == 0);  // p itself carries no weight
  BOOST_TEST(verify_vertex_certificate(x, interior, in));

  // Tampering is caught: a weight moved between two corners no longer reproduces p exactly
  // (weights still ≥ 0 and summing to 1), and a shifted hyperplane offset no longer separates.
  VertexCertificate bad = in;
  std::size_t a = 0;
  while (sgn(bad.weights[a]) == 0) ++a;
  const std::size_t b = (a + 1) % 8;
  const Rational moved = bad.weights[a] / 2;
  bad.weights[a] -= moved;
  bad.weights[b] += moved;
  BOOST_TEST(!verify_vertex_certificate(x, interior, bad));
  VertexCertificate bad_plane = certs[7];                                      // corner (1, 1, 1)
  bad_plane.c = exact_dot(bad_plane.w, Vector<double>(x.row(7).transpose()));  // c = ⟨w, p⟩: not strict
  BOOST_TEST(!verify_vertex_certificate(x, Vector<double>(x.row(7).transpose()), bad_plane));
  // A certificate for one point does not pass for another.
  BOOST_TEST(!verify_vertex_certificate(x, Vector<double>(x.row(0).transpose()), certs[7]));
}

BOOST_AUTO_TEST_CASE(edge_midpoint_outside_point_and_duplicates) {
  // The midpoint of an edge is not a vertex: exactly half of each endpoint.
  Vector<double> mid(2);
  mid << 0.5, 0;
  const Tokens<double> sq = append_row(cube_corners(2), mid);  // index 4
  const VertexCertificate m = certify_vertex(sq, Eigen::Index(4));
  BOOST_TEST(to_string(m.classification) == std::string("not-vertex"));
  BOOST_TEST((m.weights[0] == Rational(1, 2)));
  BOOST_TEST((m.weights[1] == Rational(1, 2)));
  BOOST_TEST(verify_vertex_certificate(sq, mid, m));

  // A point outside the hull is not a vertex either; the evidence is a hyperplane.
  Vector<double> out(2);
  out << 2, 2;
  const VertexCertificate o = certify_vertex(sq, out);
  BOOST_TEST(!o.p_is_a_point);
  BOOST_TEST(to_string(o.classification) == std::string("not-vertex"));
  BOOST_TEST((o.evidence == VertexCertificate::Evidence::SeparatingHyperplane));
  BOOST_TEST(verify_vertex_certificate(sq, out, o));

  // A corner listed twice is still a vertex (copies of p are not "other points").
  const Tokens<double> twice = append_row(cube_corners(2), Vector<double>(cube_corners(2).row(3).transpose()));
  const VertexCertificate t = certify_vertex(twice, Eigen::Index(4));
  BOOST_TEST(to_string(t.classification) == std::string("vertex"));
  BOOST_TEST(verify_vertex_certificate(twice, Vector<double>(twice.row(4).transpose()), t));
}

BOOST_AUTO_TEST_CASE(degenerate_inputs_report_volume_zero_and_dimension) {
  // Coplanar in 3-D: the unit square at z = 0 plus an interior point.
  Tokens<double> flat(5, 3);
  flat << 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.25, 0.5, 0;
  const HullResult h = convex_hull(flat);
  BOOST_TEST(to_string(h.status) == std::string("degenerate"));
  BOOST_TEST(h.volume == 0.0);
  BOOST_TEST(h.affine_dimension == 2);
  BOOST_TEST(std::abs(h.face_volume - 1.0) <= 1e-12);  // the square's area, inside its plane
  BOOST_TEST(h.vertices == std::vector<int>({0, 1, 2, 3}));

  // The same square tilted out of the coordinate planes (rounding leaves it flat to ~1e-16).
  Matrix<double> R(3, 3);
  const double c = std::cos(0.7), s = std::sin(0.7);
  R << 1, 0, 0, 0, c, -s, 0, s, c;
  const Tokens<double> tilted = flat * R.transpose();
  const HullResult t = convex_hull(tilted);
  BOOST_TEST(t.volume == 0.0);
  BOOST_TEST(t.affine_dimension == 2);
  BOOST_TEST(std::abs(t.face_volume - 1.0) <= 1e-12);

  // Collinear and coincident points.
  Tokens<double> line(3, 3);
  line << 0, 0, 0, 1, 2, 3, 2, 4, 6;
  const HullResult l = convex_hull(line);
  BOOST_TEST(l.affine_dimension == 1);
  BOOST_TEST(std::abs(l.face_volume - 2 * std::sqrt(14.0)) <= 1e-12);
  BOOST_TEST(l.vertices == std::vector<int>({0, 2}));
  const HullResult p = convex_hull(Tokens<double>(Tokens<double>::Ones(4, 3)));
  BOOST_TEST(p.affine_dimension == 0);
  BOOST_TEST(p.volume == 0.0);

  // Fewer points than d + 1 are always degenerate, never a crash.
  BOOST_TEST(convex_hull(standard_simplex(3).topRows(3).eval()).affine_dimension == 2);
}

BOOST_AUTO_TEST_CASE(qhull_failure_becomes_a_status) {
  // Flat to 1e-30 relative: full-dimensional in MPFR (rank tolerance 1e-40), flat in double,
  // where Qhull works. Its precision error must come back as a status with its message.
  MpfrDigitsScope digits(50);
  Tokens<mpfr> x(5, 3);
  x << 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, mpfr("0.5"), mpfr("0.5"), mpfr("1e-30");
  const HullResult h = convex_hull(x, 1e-40);
  BOOST_TEST(h.affine_dimension == 3);
  BOOST_TEST(to_string(h.status) == std::string("qhull-error"));
  BOOST_TEST(h.message.find("QH6154") != std::string::npos);
  BOOST_TEST(h.volume == 0.0);
  // With the default tolerance the same points are simply degenerate.
  BOOST_TEST(to_string(convex_hull(x).status) == std::string("degenerate"));
}

BOOST_AUTO_TEST_CASE(hausdorff_distance_of_nested_and_stretched_squares) {
  const Tokens<double> small = cube_corners(2, -1, 1);
  const Tokens<double> big = cube_corners(2, -2, 2);
  // [−1,1]² inside [−2,2]²: the farthest point of the big square from the small one is a
  // corner, (2,2) → (1,1), so d_H = √2 (not 1: the distance between the parallel edges).
  const HausdorffDistance<double> nested = hausdorff_distance(small, big);
  BOOST_TEST(nested.converged);
  BOOST_TEST(nested.tolerance > 0.0);
  BOOST_TEST(nested.tolerance < 1e-9);
  BOOST_TEST(std::abs(nested.value - std::sqrt(2.0)) <= nested.tolerance);
  BOOST_TEST(nested.value - nested.lower_bound <= nested.tolerance);

  // [−1,1]² inside [−2,2]×[−1,1]: every extra point is at distance exactly 1.
  Tokens<double> wide = small;
  wide.col(0) *= 2;
  const HausdorffDistance<double> stretched = hausdorff_distance(small, wide);
  BOOST_TEST(std::abs(stretched.value - 1.0) <= stretched.tolerance);

  // Same hull from different points (extra interior and boundary points): distance 0.
  Tokens<double> more(6, 2);
  more << -1, -1, 1, -1, -1, 1, 1, 1, 0.2, 0.3, 1, 0;
  BOOST_TEST(hausdorff_distance(small, more).value <= 1e-12);

  // A non-axis case in 3-D: the point (2, 3, 0.5) is at distance √(1 + 4) = √5 from [0,1]³.
  Vector<double> q(3);
  q << 2, 3, 0.5;
  const HullProjection<double> pr = project_onto_hull(cube_corners(3), q);
  BOOST_TEST(pr.converged);
  BOOST_TEST(std::abs(pr.distance - std::sqrt(5.0)) <= 1e-12);
  BOOST_TEST((pr.point - Vector<double>::Ones(3).cwiseMin(q)).norm() <= 1e-12);

  // The multiprecision path meets its own (much smaller) tolerance.
  MpfrDigitsScope digits(50);
  const HausdorffDistance<mpfr> hp = hausdorff_distance(convert_tokens<mpfr>(small), convert_tokens<mpfr>(big));
  BOOST_TEST(hp.tolerance < mpfr("1e-30"));
  BOOST_TEST(abs(hp.value - sqrt(mpfr(2))) <= hp.tolerance);
}

BOOST_AUTO_TEST_CASE(diameter_width_and_support_function_of_known_shapes) {
  // Rectangle [0,4]×[0,1] with an interior point: diameter √17 (a diagonal), width 1.
  Tokens<double> rect(5, 2);
  rect << 0, 0, 4, 0, 0, 1, 4, 1, 2, 0.5;
  const Diameter<double> dia = diameter(rect);
  BOOST_TEST(std::abs(dia.value - std::sqrt(17.0)) <= 1e-14);
  BOOST_TEST(((dia.i == 0 && dia.j == 3) || (dia.i == 1 && dia.j == 2)));
  BOOST_TEST(std::abs(width(rect).value - 1.0) <= 1e-14);  // attained along an axis: exact

  // Regular tetrahedron of edge 2√2, rotated off the axes: width 2 (between opposite edges,
  // not along a facet normal), diameter 2√2. The width is an upper bound found by search.
  Tokens<double> tet(4, 3);
  tet << 1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1;
  Matrix<double> Rz(3, 3), Rx(3, 3);
  Rz << std::cos(0.3), -std::sin(0.3), 0, std::sin(0.3), std::cos(0.3), 0, 0, 0, 1;
  Rx << 1, 0, 0, 0, std::cos(0.7), -std::sin(0.7), 0, std::sin(0.7), std::cos(0.7);
  const Tokens<double> rotated = tet * (Rz * Rx).transpose();
  const Width<double> w = width(rotated);
  BOOST_TEST(w.value >= 2.0 - 1e-14);  // an upper bound, up to rounding
  // Stated accuracy: about diameter × 2^-40 ≈ 2.6e-12; allow that with a factor 10.
  BOOST_TEST(w.value - 2.0 <= 10 * 2 * std::sqrt(2.0) * std::ldexp(1.0, -40));
  BOOST_TEST(std::abs(w.direction.norm() - 1.0) <= 1e-14);
  BOOST_TEST(std::abs(diameter(rotated).value - 2 * std::sqrt(2.0)) <= 1e-14);
  BOOST_TEST(width(rotated).value == w.value);  // deterministic for a fixed seed

  // Support function of the unit cube: h(u) = Σ max(u_k, 0).
  Vector<double> u(3);
  u << 1, -2, 3;
  BOOST_TEST(support_function(cube_corners(3), u) == 4.0);
}

BOOST_AUTO_TEST_CASE(bad_input_is_an_input_error) {
  BOOST_CHECK_THROW(convex_hull(Tokens<double>(0, 3)), InputError);
  Tokens<double> nan_point = cube_corners(2);
  nan_point(0, 0) = std::nan("");
  BOOST_CHECK_THROW(convex_hull(nan_point), InputError);
  BOOST_CHECK_THROW(certify_vertex(cube_corners(2), Eigen::Index(9)), InputError);
  BOOST_CHECK_THROW(hausdorff_distance(cube_corners(2), cube_corners(3)), InputError);
}

BOOST_AUTO_TEST_SUITE_END()
