#pragma once
// A-4.1 ("good triple"): tokens of the rescaled dynamics approach at most three parallel
// hyperplanes {φ_1^*(z) = c}, c ∈ {0, a, b}, when the top eigenvalue λ_1 of V is real,
// positive, simple and strictly dominant (λ_1 > |λ_2|) and ⟨Qφ_1, Kφ_1⟩ > 0.
//
// Left or right? Two different vectors play a role, and for non-normal V they differ:
//  - φ_1, the RIGHT eigenvector (V φ_1 = λ_1 φ_1, a point of ker(V − λ_1 I)): the direction
//    the sign condition ⟨Qφ_1, Kφ_1⟩ > 0 is evaluated on (our reading of [A]'s definition);
//  - φ_1^*, the LEFT eigenvector used as a linear functional (φ_1^* V = λ_1 φ_1^*), scaled so
//    φ_1^*(φ_1) = 1: the coordinate along φ_1 in an eigenbasis. It is the only choice for which
//    φ_1^*(e^{−tV} x) = e^{−λ_1 t} φ_1^*(x), which the rescaled dynamics z = e^{−tV}x needs,
//    and its level sets are the hyperplanes of the theorem.
// Both are computed and reported; for symmetric V they coincide.
//
// Numerical decisions (real, positive, simple, dominant) are made against
//   tol = c · eps · ‖V‖_F · κ,  κ = 1/|ℓᵀr| for unit left/right eigenvectors ℓ, r,
// the first-order perturbation of a simple eigenvalue by a backward error c·eps·‖V‖. For a
// defective λ_1 (Jordan block) κ blows up, so a rounding-split double eigenvalue is not
// mistaken for two simple ones.
#include "attnflow/diagnostics/decompositions.hpp"
#include "attnflow/diagnostics/numbers.hpp"
#include "attnflow/tokens.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

namespace attnflow {

namespace detail {
template <class T> T abs_value(const T& x) { return x < 0 ? T(-x) : x; }
}  // namespace detail

template <class T> struct GoodTripleCheck {
  std::vector<T> eigen_real, eigen_imag;  // all eigenvalues, by decreasing modulus (ties: larger real part first)
  T lambda1 = 0, lambda1_imag = 0;
  T lambda2_modulus = 0;  // |λ_2| (0 when d = 1)
  T gap = 0;              // λ_1 − |λ_2|
  T separation = 0;       // |λ_1 − λ_2| as complex numbers (simplicity)
  T condition = 0;        // κ = 1/|ℓᵀr|
  T tolerance = 0;        // c·eps·‖V‖_F·κ: decides simple and dominant
  T value_error = 0;      // min(tolerance, √(c·eps·‖V‖_F)·√‖V‖_F): decides real and positive
  double factor = 16;
  bool real = false, positive = false, simple = false, dominant = false;
  Vector<T> right;        // φ_1, unit norm, largest-magnitude component positive
  Vector<T> left;         // φ_1^*, with φ_1^*(φ_1) = 1
  T sign_value = 0;       // ⟨Qφ_1, Kφ_1⟩ (right eigenvector)
  T sign_value_left = 0;  // ⟨Qφ_1^*, Kφ_1^*⟩ for comparison (equal up to scale if V is normal)
  bool sign_condition = false;

  bool good() const { return real && positive && simple && dominant && sign_condition; }
  std::vector<std::string> failures() const {
    std::vector<std::string> f;
    if (!real) f.push_back("top eigenvalue not real (|Im| = " + short_number(detail::abs_value(lambda1_imag)) + ")");
    if (real && !positive) f.push_back("top eigenvalue not positive (" + short_number(lambda1) + ")");
    if (!simple) f.push_back("top eigenvalue not simple (|λ1 − λ2| = " + short_number(separation) + " ≤ tol)");
    if (!dominant) f.push_back("λ1 > |λ2| fails (gap " + short_number(gap) + ", tol " + short_number(tolerance) + ")");
    if (real && !sign_condition) f.push_back("⟨Qφ1, Kφ1⟩ = " + short_number(sign_value) + " not > 0");
    return f;
  }
  std::string summary() const {
    std::string s = fmt::format(
        "{} triple: λ1 = {}{}, |λ2| = {}, gap {}, ⟨Qφ1,Kφ1⟩ = {} (tol {})", good() ? "good" : "not a good",
        short_number(lambda1), lambda1_imag != 0 ? " ± " + short_number(lambda1_imag) + "i" : std::string(),
        short_number(lambda2_modulus), short_number(gap), short_number(sign_value), short_number(tolerance));
    for (const auto& f : failures()) s += "; " + f;
    return s;
  }
  nlohmann::json to_json() const {
    return {{"good", good()},
            {"eigenvalues", {{"real", json_numbers(eigen_real)}, {"imag", json_numbers(eigen_imag)}}},
            {"lambda1", json_number(lambda1)},
            {"lambda1_imag", json_number(lambda1_imag)},
            {"lambda2_modulus", json_number(lambda2_modulus)},
            {"gap", json_number(gap)},
            {"separation", json_number(separation)},
            {"condition", json_number(condition)},
            {"tolerance", json_number(tolerance)},
            {"tolerance_rule", fmt::format("{:g}·eps·‖V‖_F·κ, κ = 1/|ℓᵀr|", factor)},
            {"value_error", json_number(value_error)},
            {"real", real},
            {"positive", positive},
            {"simple", simple},
            {"dominant", dominant},
            {"right_eigenvector", json_numbers(right)},
            {"left_functional", json_numbers(left)},
            {"sign_value", json_number(sign_value)},
            {"sign_value_left", json_number(sign_value_left)},
            {"sign_condition", sign_condition},
            {"failures", failures()},
            {"summary", summary()}};
  }
};

/// Eigenvalues of V from its real Schur form (no complex arithmetic, so MPFR works).
template <class T> void real_eigenvalues(const Matrix<T>& V, std::vector<T>& re, std::vector<T>& im) {
  using std::sqrt;
  const Eigen::RealSchur<Matrix<T>> schur(V);
  const Matrix<T>& S = schur.matrixT();
  const Eigen::Index d = V.rows();
  for (Eigen::Index i = 0; i < d; ++i) {
    if (i + 1 < d && S(i + 1, i) != 0) {
      const T a = S(i, i), b = S(i, i + 1), c = S(i + 1, i), e = S(i + 1, i + 1);
      const T p = (a + e) / 2, h = (a - e) / 2, disc = h * h + b * c;
      if (disc >= 0) {
        const T r = sqrt(disc);
        re.push_back(p + r), im.push_back(T(0)), re.push_back(p - r), im.push_back(T(0));
      } else {
        const T q = sqrt(T(-disc));
        re.push_back(p), im.push_back(q), re.push_back(p), im.push_back(T(-q));
      }
      ++i;
    } else {
      re.push_back(S(i, i)), im.push_back(T(0));
    }
  }
}

template <class T>
GoodTripleCheck<T> check_good_triple(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V, double factor = 16) {
  using std::abs;
  using std::sqrt;
  GoodTripleCheck<T> g;
  g.factor = factor;
  const Eigen::Index d = V.rows();
  std::vector<T> re, im;
  real_eigenvalues(V, re, im);
  std::vector<std::size_t> order(re.size());
  std::iota(order.begin(), order.end(), 0);
  auto mod2 = [&](std::size_t k) { return T(re[k] * re[k] + im[k] * im[k]); };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return mod2(a) != mod2(b) ? mod2(a) > mod2(b) : re[a] > re[b];
  });
  for (std::size_t k : order) g.eigen_real.push_back(re[k]), g.eigen_imag.push_back(im[k]);
  g.lambda1 = g.eigen_real[0], g.lambda1_imag = g.eigen_imag[0];
  if (d > 1) {
    g.lambda2_modulus = sqrt(T(g.eigen_real[1] * g.eigen_real[1] + g.eigen_imag[1] * g.eigen_imag[1]));
    const T dr = g.eigen_real[0] - g.eigen_real[1], di = g.eigen_imag[0] - g.eigen_imag[1];
    g.separation = sqrt(T(dr * dr + di * di));
  } else {
    g.separation = abs(g.lambda1);
  }
  g.gap = g.lambda1 - g.lambda2_modulus;
  const T eps = epsilon_of(V(0, 0));
  const T base = T(factor) * eps * T(V.norm());

  // A double eigenvalue is split by rounding into λ ± O(√(eps·‖V‖)·‖V‖), possibly as a complex
  // pair: a top eigenvalue with an imaginary part that small is treated as a real candidate,
  // and its condition number then decides (κ ~ 1/√eps for a Jordan block: not simple).
  const T split = sqrt(T(base * T(V.norm())));
  g.tolerance = base;
  if (abs(g.lambda1_imag) <= split) {
    // Null vectors of V − Re λ_1 I: right = last right singular vector, left = last left one.
    const Matrix<T> A = V - g.lambda1 * Matrix<T>::Identity(d, d);
    const Eigen::JacobiSVD<Matrix<T>> svd(A, Eigen::ComputeFullU | Eigen::ComputeFullV);
    Vector<T> r = svd.matrixV().col(d - 1), l = svd.matrixU().col(d - 1);
    Eigen::Index big = 0;
    for (Eigen::Index k = 1; k < d; ++k)
      if (abs(r(k)) > abs(r(big))) big = k;
    if (r(big) < 0) r = -r;
    const T lr = l.dot(r);
    if (lr != 0) {
      g.condition = T(1 / abs(lr));
      g.tolerance = base * g.condition;
      l /= lr;  // φ_1^*(φ_1) = 1
      if (g.lambda1_imag == 0) {
        g.lambda1 = T(l.dot(V * r));  // two-sided Rayleigh quotient: refines a simple λ_1
        g.gap = g.lambda1 - g.lambda2_modulus;
      }
    } else {
      g.condition = std::numeric_limits<T>::infinity();
      g.tolerance = std::numeric_limits<T>::infinity();
    }
    g.right = r, g.left = l;
    g.sign_value = (Q * r).dot(K * r);
    g.sign_value_left = (Q * l).dot(K * l);
  } else {
    g.condition = std::numeric_limits<T>::infinity();  // no real eigenvector: κ undefined
  }
  // How far λ_1 itself may be off: first order for a simple eigenvalue, √ for a double one
  // (the first-order bound explodes with κ there and would call λ_1 = 2 "not positive").
  g.value_error = g.tolerance < split ? g.tolerance : split;
  g.real = abs(g.lambda1_imag) <= g.value_error;
  g.positive = g.real && g.lambda1 > g.value_error;
  g.simple = g.separation > g.tolerance;
  g.dominant = g.gap > g.tolerance;
  // The sign condition has its own rounding: |⟨Qr,Kr⟩| below c·eps·‖Q‖‖K‖ is undecidable → fails.
  g.sign_condition = g.real && g.sign_value > T(factor) * eps * T(Q.norm()) * T(K.norm());
  return g;
}

/// φ_1^*(z_i) for every token (row) of z.
template <class T> std::vector<T> hyperplane_coordinates(const Tokens<T>& z, const GoodTripleCheck<T>& g) {
  std::vector<T> c;
  for (Eigen::Index i = 0; i < z.rows(); ++i) c.push_back(z.row(i).transpose().dot(g.left));
  return c;
}

/// φ_1^*(e^{−tV} x_i) = e^{−λ_1 t} φ_1^*(x_i): the rescaled coordinate without forming e^{−tV}.
template <class T>
std::vector<T> rescaled_hyperplane_coordinates(const Tokens<T>& x, const T& t, const GoodTripleCheck<T>& g) {
  using std::exp;
  const T scale = exp(-g.lambda1 * t);
  std::vector<T> c = hyperplane_coordinates(x, g);
  for (T& v : c) v *= scale;
  return c;
}

/// Limit values grouped into levels by 1-D single linkage: sorted values split where two
/// neighbours are more than `tolerance` apart.
template <class T> struct Level {
  T low = 0, high = 0, mean = 0;
  std::vector<int> members;  // token indices, increasing
};

template <class T> struct HyperplaneLevels {
  T tolerance = 0;
  std::vector<Level<T>> levels;  // by increasing value
  int zero_level = -1;           // the level within tolerance of 0, −1 if none

  int count() const { return static_cast<int>(levels.size()); }
  bool has_zero_level() const { return zero_level >= 0; }
  /// allows the values {0, a, b}: at most 3 levels, and with 3 one of them is 0.
  bool consistent_with_theorem() const { return count() <= 2 || (count() == 3 && has_zero_level()); }

  std::string summary() const {
    std::string vals;
    for (const auto& l : levels) vals += (vals.empty() ? "" : ", ") + short_number(l.mean);
    return fmt::format("{} level{} {{{}}} (tolerance {}){}; {} with at most 3 levels, one of them 0", count(),
                       count() == 1 ? "" : "s", vals, short_number(tolerance),
                       has_zero_level() ? fmt::format(", level {} is 0", zero_level) : std::string(", none is 0"),
                       consistent_with_theorem() ? "consistent" : "inconsistent");
  }
  nlohmann::json to_json() const {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& l : levels)
      a.push_back({{"low", json_number(l.low)},
                   {"high", json_number(l.high)},
                   {"mean", json_number(l.mean)},
                   {"members", l.members}});
    return {{"tolerance", json_number(tolerance)},
            {"levels", a},
            {"count", count()},
            {"zero_level", zero_level},
            {"consistent_with_theorem", consistent_with_theorem()},
            {"summary", summary()}};
  }
};

template <class T> HyperplaneLevels<T> group_levels(const std::vector<T>& values, const T& tolerance) {
  HyperplaneLevels<T> h;
  h.tolerance = tolerance;
  std::vector<int> idx(values.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return values[a] < values[b]; });
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const T& v = values[idx[k]];
    if (k == 0 || v - values[idx[k - 1]] > tolerance) h.levels.push_back({v, v, T(0), {}});
    Level<T>& l = h.levels.back();
    l.high = v;
    l.mean += v;
    l.members.push_back(idx[k]);
  }
  for (std::size_t k = 0; k < h.levels.size(); ++k) {
    Level<T>& l = h.levels[k];
    l.mean /= T(static_cast<long>(l.members.size()));
    std::sort(l.members.begin(), l.members.end());
    if (h.zero_level < 0 && l.low - tolerance <= 0 && 0 <= l.high + tolerance) h.zero_level = int(k);
  }
  return h;
}

// The Schur form and SVD are the expensive part to compile: instantiated in hyperplanes.cpp.
extern template GoodTripleCheck<double> check_good_triple(const Matrix<double>&, const Matrix<double>&,
                                                          const Matrix<double>&, double);
extern template GoodTripleCheck<long double> check_good_triple(const Matrix<long double>&, const Matrix<long double>&,
                                                               const Matrix<long double>&, double);
extern template GoodTripleCheck<float128> check_good_triple(const Matrix<float128>&, const Matrix<float128>&,
                                                            const Matrix<float128>&, double);
extern template GoodTripleCheck<mpfr> check_good_triple(const Matrix<mpfr>&, const Matrix<mpfr>&, const Matrix<mpfr>&,
                                                        double);

}  // namespace attnflow
