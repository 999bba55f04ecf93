// Enclosures of a matrix's spectrum (spectrum_enclosure.hpp).
#define ATTNFLOW_ROUNDING_TU
#include "attnflow/verify/spectrum_enclosure.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>

#include <algorithm>
#include <cfenv>
#include <cmath>

namespace attnflow::verify {

namespace {
using I = DInterval;
}  // namespace

Eigen::MatrixXd midpoint(const IMatrix& M) {
  Eigen::MatrixXd m(M.rows(), M.cols());
  for (Eigen::Index r = 0; r < M.rows(); ++r)
    for (Eigen::Index c = 0; c < M.cols(); ++c) m(r, c) = iv::mid(M(r, c));
  return m;
}

IMatrix product(const IMatrix& a, const IMatrix& b) {
  IMatrix out = IMatrix::Constant(a.rows(), b.cols(), I(0));
  for (Eigen::Index r = 0; r < a.rows(); ++r)
    for (Eigen::Index c = 0; c < b.cols(); ++c) {
      I sum(0);
      for (Eigen::Index k = 0; k < a.cols(); ++k) sum += iv::mul(a(r, k), b(k, c));
      out(r, c) = sum;
    }
  return out;
}

IMatrix thin(const Eigen::MatrixXd& m) {
  IMatrix out(m.rows(), m.cols());
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c) out(r, c) = I(m(r, c));
  return out;
}

/// Real approximate eigenvectors of m (a complex pair contributes its real and imaginary parts).
Eigen::MatrixXd approximate_eigenvectors(const Eigen::MatrixXd& m) {
  const Eigen::Index k = m.rows();
  Eigen::EigenSolver<Eigen::MatrixXd> es(m);
  if (es.info() != Eigen::Success) return Eigen::MatrixXd::Identity(k, k);
  const Eigen::VectorXcd values = es.eigenvalues();
  const Eigen::MatrixXcd vectors = es.eigenvectors();
  Eigen::MatrixXd v(k, k);
  for (Eigen::Index c = 0; c < k; ++c) {
    if (values(c).imag() == 0) {
      v.col(c) = vectors.col(c).real();
    } else if (c + 1 < k && values(c + 1) == std::conj(values(c))) {
      v.col(c) = vectors.col(c).real();
      v.col(c + 1) = vectors.col(c).imag();
      ++c;
    } else {
      return Eigen::MatrixXd::Identity(k, k);
    }
  }
  return v;
}

/// Gershgorin's discs of V⁻¹ M V (an enclosure of V⁻¹ from R ≈ V⁻¹), as real-part intervals merged
/// into connected parts. Caller holds RoundUpward.
std::vector<SpectrumPart> transverse_spectrum(const IMatrix& M, const Eigen::MatrixXd& V, const Eigen::MatrixXd& R) {
  const Eigen::Index k = M.rows();
  IMatrix Vi = thin(V), Ri = thin(R);
  // ‖I − R V‖∞ = δ < 1 gives V⁻¹ = (I − (I − RV))⁻¹ R, so ‖V⁻¹ − R‖∞ ≤ δ/(1 − δ) ‖R‖∞: every entry
  // of V⁻¹ lies within that of R's.
  const IMatrix RV = product(Ri, Vi);
  double delta = 0, normR = 0;
  for (Eigen::Index r = 0; r < k; ++r) {
    I row(0), rrow(0);
    for (Eigen::Index c = 0; c < k; ++c) {
      row += I(iv::mag((r == c ? I(1) : I(0)) - RV(r, c)));
      rrow += I(std::abs(R(r, c)));
    }
    delta = std::max(delta, row.upper());
    normR = std::max(normR, rrow.upper());
  }
  IMatrix Vinv(k, k);
  if (delta < 0.5) {
    const double rho = (I(delta) / (I(1) - I(delta)) * I(normR)).upper();
    for (Eigen::Index r = 0; r < k; ++r)
      for (Eigen::Index c = 0; c < k; ++c) Vinv(r, c) = Ri(r, c) + I(-rho, rho);
  } else {
    Vi = IMatrix::Identity(k, k);
    Vinv = IMatrix::Identity(k, k);
  }
  const IMatrix B = product(product(Vinv, M), Vi);
  std::vector<SpectrumPart> discs;
  for (Eigen::Index r = 0; r < k; ++r) {
    I radius(0);
    for (Eigen::Index c = 0; c < k; ++c)
      if (c != r) radius += I(iv::mag(B(r, c)));
    const I span = B(r, r) + I(-radius.upper(), radius.upper());
    discs.push_back({span.lower(), span.upper(), 1});
  }
  std::sort(discs.begin(), discs.end(), [](const SpectrumPart& a, const SpectrumPart& b) { return a.lo < b.lo; });
  std::vector<SpectrumPart> parts;
  for (const SpectrumPart& d : discs) {
    if (!parts.empty() && d.lo <= parts.back().hi) {
      parts.back().hi = std::max(parts.back().hi, d.hi);
      parts.back().count += d.count;
    } else {
      parts.push_back(d);
    }
  }
  return parts;
}

/// Eigenvectors in which each cluster of (numerically) equal real eigenvalues has an orthonormal
/// basis of its eigenspace instead: the right singular vectors of m − λ̄I for its k smallest singular
/// values, when those are small and the next is not. A multiple semisimple eigenvalue (tokens that
/// play the same part, as in a cluster) has a well-conditioned eigenspace, but the eigensolver's
/// vectors for it are nearly dependent, and a similarity by them encloses nothing.
Eigen::MatrixXd clustered_eigenvectors(const Eigen::MatrixXd& m) {
  const Eigen::Index k = m.rows();
  Eigen::MatrixXd v = approximate_eigenvectors(m);
  Eigen::EigenSolver<Eigen::MatrixXd> es(m, false);
  if (es.info() != Eigen::Success) return v;
  const Eigen::VectorXcd values = es.eigenvalues();
  const double scale = std::max(1.0, values.cwiseAbs().maxCoeff());
  std::vector<Eigen::Index> real;
  for (Eigen::Index c = 0; c < k; ++c)
    if (std::abs(values(c).imag()) <= 1e-9 * scale) real.push_back(c);
  std::sort(real.begin(), real.end(), [&](Eigen::Index a, Eigen::Index b) { return values(a).real() < values(b).real(); });
  for (std::size_t first = 0; first < real.size();) {
    std::size_t last = first + 1;
    while (last < real.size() && values(real[last]).real() - values(real[last - 1]).real() <= 1e-7 * scale) ++last;
    const Eigen::Index size = static_cast<Eigen::Index>(last - first);
    if (size >= 2) {
      double mean = 0;
      for (std::size_t c = first; c < last; ++c) mean += values(real[c]).real() / static_cast<double>(size);
      const Eigen::BDCSVD<Eigen::MatrixXd> svd(m - mean * Eigen::MatrixXd::Identity(k, k), Eigen::ComputeFullV);
      const Eigen::VectorXd sigma = svd.singularValues();  // decreasing
      const bool eigenspace = sigma(k - size) <= 1e-6 * scale && (size == k || sigma(k - size - 1) >= 1e-3 * scale);
      if (eigenspace)
        for (Eigen::Index c = 0; c < size; ++c) v.col(real[first + static_cast<std::size_t>(c)]) = svd.matrixV().col(k - size + c);
    }
    first = last;
  }
  return v;
}

namespace {
/// transverse_spectrum by a similarity by V (the identity when V is not invertible). Caller holds
/// RoundUpward; V and R are formed rounding to nearest.
std::vector<SpectrumPart> similar_spectrum(const IMatrix& M, const Eigen::MatrixXd& mid,
                                           Eigen::MatrixXd (*vectors)(const Eigen::MatrixXd&)) {
  const Eigen::Index n = M.rows();
  Eigen::MatrixXd V, R;
  std::fesetround(FE_TONEAREST);  // the approximate eigenvectors: any V serves, a good one is narrow
  V = vectors(mid);
  const Eigen::FullPivLU<Eigen::MatrixXd> vlu(V);
  if (vlu.isInvertible()) {
    R = vlu.inverse();
  } else {
    V = Eigen::MatrixXd::Identity(n, n);
    R = V;
  }
  std::fesetround(FE_UPWARD);
  return transverse_spectrum(M, V, R);
}
}  // namespace

/// Gershgorin's discs after the similarity by the approximate eigenvectors of M's midpoint; when
/// they leave a part across 0, by the clustered ones (either is an enclosure: the one that decides
/// is kept). Caller holds RoundUpward.
std::vector<SpectrumPart> enclosed_real_parts(const IMatrix& M) {
  const Eigen::MatrixXd mid = midpoint(M);
  std::vector<SpectrumPart> parts = similar_spectrum(M, mid, approximate_eigenvectors);
  if (spectrum_index(parts).decided) return parts;
  std::vector<SpectrumPart> clustered = similar_spectrum(M, mid, clustered_eigenvectors);
  return spectrum_index(clustered).decided ? clustered : parts;
}

void classify_stability(EquilibriumResult& r) {
  const SpectrumIndex index = spectrum_index(r.transverse_spectrum);
  r.unstable_directions = index.positive;
  r.index_exact = index.decided;
  r.stability = index.all_negative ? "stable" : index.positive > 0 ? "unstable" : "undecided";
}

}  // namespace attnflow::verify
