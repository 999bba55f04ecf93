#include "attnflow/diagnostics/vertex_certificate.hpp"

#include "attnflow/diagnostics/separation.hpp"
#include "attnflow/errors.hpp"

namespace attnflow {
namespace {

bool same_point(const Tokens<double>& x, Eigen::Index j, const Vector<double>& p) {
  for (Eigen::Index k = 0; k < x.cols(); ++k)
    if (x(j, k) != p(k)) return false;
  return true;
}

VertexCertificate certify_in_double(const Tokens<double>& x, const Vector<double>& p) {
  if (x.rows() < 1) input_error("points", "need at least one point");
  if (x.cols() < 1) input_error("points", "dimension must be at least 1");
  if (p.size() != x.cols()) input_error("point", "dimension differs from the points'");
  if (!x.allFinite() || !p.allFinite()) input_error("points", "entries must be finite (after rounding to double)");

  VertexCertificate r;
  std::vector<Eigen::Index> others;
  for (Eigen::Index j = 0; j < x.rows(); ++j) {
    if (same_point(x, j, p))
      r.p_is_a_point = true;
    else
      others.push_back(j);
  }
  if (others.empty()) {  // only copies of p: p is the whole hull, trivially its vertex
    r.classification = VertexCertificate::Classification::Vertex;
    r.evidence = VertexCertificate::Evidence::SeparatingHyperplane;
    r.w = Vector<double>::Unit(x.cols(), 0);
    r.c = to_rational(p(0)) - 1;
    r.method = "no other points: any hyperplane below p separates";
    return r;
  }
  Tokens<double> rest(static_cast<Eigen::Index>(others.size()), x.cols());
  for (std::size_t i = 0; i < others.size(); ++i) rest.row(static_cast<Eigen::Index>(i)) = x.row(others[i]);

  const SeparationCertificate s = certify_separation(rest, p);
  r.method = s.method;
  switch (s.kind) {
    case SeparationCertificate::Kind::Separated: {
      // ⟨x_j − p, w⟩ > 0 for all others: the normal −w puts p strictly above every x_j.
      r.w = -s.w;
      r.c = exact_dot(r.w, Vector<double>(rest.row(0).transpose()));
      for (Eigen::Index j = 1; j < rest.rows(); ++j) {
        const Rational v = exact_dot(r.w, Vector<double>(rest.row(j).transpose()));
        if (v > r.c) r.c = v;
      }
      r.evidence = VertexCertificate::Evidence::SeparatingHyperplane;
      r.classification = r.p_is_a_point ? VertexCertificate::Classification::Vertex : VertexCertificate::Classification::NotVertex;
      if (!r.p_is_a_point) r.method += " (p is not one of the points and lies outside their hull)";
      break;
    }
    case SeparationCertificate::Kind::InHull:
      r.weights.assign(static_cast<std::size_t>(x.rows()), Rational(0));
      for (std::size_t i = 0; i < others.size(); ++i) r.weights[others[i]] = s.weights[i];
      r.evidence = VertexCertificate::Evidence::ConvexCombination;
      r.classification = VertexCertificate::Classification::NotVertex;
      break;
    case SeparationCertificate::Kind::Uncertified: break;
  }
  return r;
}

}  // namespace

const char* to_string(VertexCertificate::Classification c) {
  switch (c) {
    case VertexCertificate::Classification::Vertex: return "vertex";
    case VertexCertificate::Classification::NotVertex: return "not-vertex";
    case VertexCertificate::Classification::Uncertified: return "uncertified";
  }
  return "?";
}

template <class T> VertexCertificate certify_vertex(const Tokens<T>& points, const Vector<T>& p) {
  Vector<double> pd(p.size());
  for (Eigen::Index k = 0; k < p.size(); ++k) pd(k) = convert_scalar<double>(p(k));
  VertexCertificate r = certify_in_double(convert_tokens<double>(points), pd);
  r.points_rounded_to_double = !std::is_same_v<T, double>;
  return r;
}

template <class T> VertexCertificate certify_vertex(const Tokens<T>& points, Eigen::Index k) {
  if (k < 0 || k >= points.rows()) input_error("index", "out of range");
  return certify_vertex(points, Vector<T>(points.row(k).transpose()));
}

template <class T> std::vector<VertexCertificate> certify_vertices(const Tokens<T>& points) {
  std::vector<VertexCertificate> r;
  for (Eigen::Index k = 0; k < points.rows(); ++k) r.push_back(certify_vertex(points, k));
  return r;
}

bool verify_vertex_certificate(const Tokens<double>& x, const Vector<double>& p, const VertexCertificate& cert) {
  if (x.rows() < 1 || p.size() != x.cols() || !x.allFinite() || !p.allFinite()) return false;
  bool p_is_a_point = false;
  for (Eigen::Index j = 0; j < x.rows(); ++j) p_is_a_point = p_is_a_point || same_point(x, j, p);
  if (p_is_a_point != cert.p_is_a_point) return false;

  switch (cert.evidence) {
    case VertexCertificate::Evidence::SeparatingHyperplane: {
      const auto expected = p_is_a_point ? VertexCertificate::Classification::Vertex : VertexCertificate::Classification::NotVertex;
      if (cert.classification != expected || cert.w.size() != x.cols() || !cert.w.allFinite()) return false;
      if (!(exact_dot(cert.w, p) > cert.c)) return false;
      for (Eigen::Index j = 0; j < x.rows(); ++j)
        if (!same_point(x, j, p) && exact_dot(cert.w, Vector<double>(x.row(j).transpose())) > cert.c) return false;
      return true;
    }
    case VertexCertificate::Evidence::ConvexCombination: {
      if (cert.classification != VertexCertificate::Classification::NotVertex) return false;
      if (cert.weights.size() != static_cast<std::size_t>(x.rows())) return false;
      for (Eigen::Index j = 0; j < x.rows(); ++j)
        if (same_point(x, j, p) && sgn(cert.weights[j]) != 0) return false;  // p = 1·p proves nothing
      SeparationCertificate s;
      s.kind = SeparationCertificate::Kind::InHull;
      s.weights = cert.weights;
      return verify_separation_certificate(x, p, s);
    }
    case VertexCertificate::Evidence::None: return false;
  }
  return false;
}

#define ATTNFLOW_INSTANTIATE(T)                                                     \
  template VertexCertificate certify_vertex<T>(const Tokens<T>&, const Vector<T>&); \
  template VertexCertificate certify_vertex<T>(const Tokens<T>&, Eigen::Index);     \
  template std::vector<VertexCertificate> certify_vertices<T>(const Tokens<T>&);
ATTNFLOW_INSTANTIATE(double)
ATTNFLOW_INSTANTIATE(long double)
ATTNFLOW_INSTANTIATE(float128)
ATTNFLOW_INSTANTIATE(mpfr)
#undef ATTNFLOW_INSTANTIATE

}  // namespace attnflow
