#pragma once
// The attention matrix P (n×n, row-stochastic) as sees it: how close P is to a Boolean
// matrix (every row a unit vector e_j), its numerical rank, and which tokens lead (capture the
// attention of others). For d = 1 also which rows are captured by the leftmost and rightmost
// tokens, and which are exceptional (the theorem allows at most one).
#include "attnflow/diagnostics/decompositions.hpp"
#include "attnflow/diagnostics/numbers.hpp"
#include "attnflow/tokens.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace attnflow {

inline constexpr double kDefaultRankTolerance = 1e-8;

/// Numerical rank: the number of singular values σ_k > tol·σ_1, at the caller's tolerance and at
/// tol = √eps (the level below which an SVD cannot tell a singular value from rounding).
template <class T> struct NumericalRank {
  std::vector<T> singular_values;  // decreasing
  double tolerance = kDefaultRankTolerance;
  int rank = 0;
  T sqrt_eps = 0;
  int rank_at_sqrt_eps = 0;

  std::string rule() const { return "count of sigma_k > tol * sigma_1"; }
  nlohmann::json to_json() const {
    return {{"singular_values", json_numbers(singular_values)},
            {"rule", rule()},
            {"tolerance", tolerance},
            {"rank", rank},
            {"sqrt_eps", json_number(sqrt_eps)},
            {"rank_at_sqrt_eps", rank_at_sqrt_eps}};
  }
};

template <class T> NumericalRank<T> numerical_rank(const Matrix<T>& P, double tol = kDefaultRankTolerance) {
  using std::sqrt;
  NumericalRank<T> r;
  r.tolerance = tol;
  r.sqrt_eps = sqrt(P.size() > 0 ? epsilon_of(P(0, 0)) : epsilon<T>());
  if (P.size() == 0) return r;
  // Jacobi is slow for large n but accurate and works for every scalar type, MPFR included.
  const Eigen::JacobiSVD<Matrix<T>> svd(P);
  const Vector<T>& s = svd.singularValues();
  for (Eigen::Index k = 0; k < s.size(); ++k) r.singular_values.push_back(s(k));
  const T s1 = s(0);
  for (Eigen::Index k = 0; k < s.size(); ++k) {
    if (s(k) > T(tol) * s1) ++r.rank;
    if (s(k) > r.sqrt_eps * s1) ++r.rank_at_sqrt_eps;
  }
  return r;
}

/// Row-wise argmax with ties resolved to the smallest index; a row is "ambiguous" when its two
/// largest entries are within 16·eps of each other, so the argmax is decided by rounding.
template <class T> struct RowArgmax {
  std::vector<int> column;
  std::vector<bool> ambiguous;
};

template <class T> RowArgmax<T> row_argmax(const Matrix<T>& P) {
  using std::abs;
  RowArgmax<T> a;
  for (Eigen::Index i = 0; i < P.rows(); ++i) {
    Eigen::Index best = 0;
    for (Eigen::Index j = 1; j < P.cols(); ++j)
      if (P(i, j) > P(i, best)) best = j;
    bool tie = false;
    const T margin = T(16) * epsilon_of(P(i, best)) * (abs(P(i, best)) > 1 ? T(abs(P(i, best))) : T(1));
    for (Eigen::Index j = 0; j < P.cols(); ++j)
      if (j != best && P(i, best) - P(i, j) <= margin) tie = true;
    a.column.push_back(static_cast<int>(best));
    a.ambiguous.push_back(tie);
  }
  return a;
}

/// Distance from P to the nearest Boolean row-stochastic matrix. For a row p the nearest e_j in
/// the Euclidean norm is the argmax, because ‖p − e_j‖² = ‖p‖² − 2 p_j + 1.
template <class T> struct BooleanDistance {
  std::vector<int> nearest_column;  // j(i): the e_j nearest to row i
  std::vector<int> ambiguous_rows;  // rows whose nearest e_j is decided by rounding
  T max_row_distance = 0;           // max_i ‖P_i − e_{j(i)}‖₂
  int worst_row = -1;
  T frobenius_distance = 0;  // ‖P − B‖_F

  nlohmann::json to_json() const {
    return {{"nearest_column", nearest_column},
            {"ambiguous_rows", ambiguous_rows},
            {"max_row_distance", json_number(max_row_distance)},
            {"worst_row", worst_row},
            {"frobenius_distance", json_number(frobenius_distance)}};
  }
};

template <class T> BooleanDistance<T> distance_to_boolean(const Matrix<T>& P) {
  using std::sqrt;
  BooleanDistance<T> b;
  const RowArgmax<T> a = row_argmax(P);
  T sum_sq = 0;
  for (Eigen::Index i = 0; i < P.rows(); ++i) {
    const int j = a.column[i];
    T row_sq = 0;
    for (Eigen::Index k = 0; k < P.cols(); ++k) {
      const T diff = P(i, k) - (k == j ? T(1) : T(0));
      row_sq += diff * diff;
    }
    const T dist = sqrt(row_sq);
    if (b.worst_row < 0 || dist > b.max_row_distance) b.max_row_distance = dist, b.worst_row = int(i);
    sum_sq += row_sq;
    b.nearest_column.push_back(j);
    if (a.ambiguous[i]) b.ambiguous_rows.push_back(int(i));
  }
  b.frobenius_distance = sqrt(sum_sq);
  return b;
}

/// A leader: a column that is the (unambiguous) argmax of at least one row.
struct Leader {
  int column = 0;
  std::vector<int> rows;  // the rows it captures
  int rows_captured() const { return static_cast<int>(rows.size()); }
};

struct Leaders {
  std::vector<Leader> leaders;      // by increasing column
  std::vector<int> ambiguous_rows;  // rows with no clear argmax, captured by nobody

  std::vector<int> columns() const {
    std::vector<int> c;
    for (const auto& l : leaders) c.push_back(l.column);
    return c;
  }
  nlohmann::json to_json() const {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& l : leaders)
      a.push_back({{"column", l.column}, {"rows_captured", l.rows_captured()}, {"rows", l.rows}});
    return {{"leaders", a}, {"count", leaders.size()}, {"ambiguous_rows", ambiguous_rows}};
  }
};

template <class T> Leaders attention_leaders(const Matrix<T>& P) {
  const RowArgmax<T> a = row_argmax(P);
  std::vector<std::vector<int>> captured(static_cast<std::size_t>(P.cols()));
  Leaders l;
  for (std::size_t i = 0; i < a.column.size(); ++i) {
    if (a.ambiguous[i])
      l.ambiguous_rows.push_back(int(i));
    else
      captured[a.column[i]].push_back(int(i));
  }
  for (std::size_t j = 0; j < captured.size(); ++j)
    if (!captured[j].empty()) l.leaders.push_back({int(j), captured[j]});
  return l;
}

/// d = 1: rows captured by the leftmost token (argmin x), by the rightmost (argmax x),
/// and the exceptional rest (other argmax, or ambiguous). The theorem allows at most one
/// exceptional row in the limit.
template <class T> struct ExtremeCapture {
  int leftmost = -1, rightmost = -1;
  std::vector<int> to_leftmost, to_rightmost, exceptional;
  std::vector<T> distance_to_leftmost;   // ‖P_i − e_leftmost‖₂ per row
  std::vector<T> distance_to_rightmost;  // ‖P_i − e_rightmost‖₂ per row

  bool at_most_one_exceptional() const { return exceptional.size() <= 1; }
  nlohmann::json to_json() const {
    return {{"leftmost", leftmost},
            {"rightmost", rightmost},
            {"to_leftmost", to_leftmost},
            {"to_rightmost", to_rightmost},
            {"exceptional", exceptional},
            {"at_most_one_exceptional", at_most_one_exceptional()},
            {"distance_to_leftmost", json_numbers(distance_to_leftmost)},
            {"distance_to_rightmost", json_numbers(distance_to_rightmost)}};
  }
};

template <class T> ExtremeCapture<T> extreme_token_capture(const Matrix<T>& P, const Tokens<T>& x) {
  using std::sqrt;
  if (x.cols() != 1 || x.rows() != P.rows())
    throw std::invalid_argument("extreme_token_capture: needs d = 1 tokens, one per row of P");
  ExtremeCapture<T> e;
  Eigen::Index lo = 0, hi = 0;
  for (Eigen::Index i = 1; i < x.rows(); ++i) {
    if (x(i, 0) < x(lo, 0)) lo = i;
    if (x(i, 0) > x(hi, 0)) hi = i;
  }
  e.leftmost = int(lo), e.rightmost = int(hi);
  const RowArgmax<T> a = row_argmax(P);
  auto dist_to_unit = [&](Eigen::Index i, Eigen::Index j) {
    T s = 0;
    for (Eigen::Index k = 0; k < P.cols(); ++k) {
      const T diff = P(i, k) - (k == j ? T(1) : T(0));
      s += diff * diff;
    }
    return T(sqrt(s));
  };
  for (Eigen::Index i = 0; i < P.rows(); ++i) {
    e.distance_to_leftmost.push_back(dist_to_unit(i, lo));
    e.distance_to_rightmost.push_back(dist_to_unit(i, hi));
    if (a.ambiguous[i])
      e.exceptional.push_back(int(i));
    else if (a.column[i] == lo)
      e.to_leftmost.push_back(int(i));
    else if (a.column[i] == hi)
      e.to_rightmost.push_back(int(i));
    else
      e.exceptional.push_back(int(i));
  }
  return e;
}

/// Everything above for one P (and, for d = 1, its tokens).
template <class T> struct AttentionDiagnostics {
  NumericalRank<T> rank;
  BooleanDistance<T> boolean;
  Leaders leaders;
  std::optional<ExtremeCapture<T>> extremes;  // d = 1 only

  std::string summary() const {
    std::string s = fmt::format(
        "rank {} (tol {:g}; {} at sqrt(eps)); distance to Boolean {} (max row), {} (Frobenius); {} leader{}", rank.rank,
        rank.tolerance, rank.rank_at_sqrt_eps, short_number(boolean.max_row_distance),
        short_number(boolean.frobenius_distance), leaders.leaders.size(), leaders.leaders.size() == 1 ? "" : "s");
    if (extremes)
      s += fmt::format("; {} rows to leftmost, {} to rightmost, {} exceptional", extremes->to_leftmost.size(),
                       extremes->to_rightmost.size(), extremes->exceptional.size());
    return s;
  }
  nlohmann::json to_json() const {
    nlohmann::json j = {{"rank", rank.to_json()},
                        {"boolean", boolean.to_json()},
                        {"leaders", leaders.to_json()},
                        {"summary", summary()}};
    j["extremes"] = extremes ? extremes->to_json() : nlohmann::json(nullptr);
    return j;
  }
};

template <class T> AttentionDiagnostics<T> diagnose_attention(const Matrix<T>& P, const Tokens<T>* x = nullptr,
                                                              double rank_tol = kDefaultRankTolerance) {
  AttentionDiagnostics<T> a;
  a.rank = numerical_rank(P, rank_tol);
  a.boolean = distance_to_boolean(P);
  a.leaders = attention_leaders(P);
  if (x != nullptr && x->cols() == 1) a.extremes = extreme_token_capture(P, *x);
  return a;
}

// The SVD is the expensive part to compile: instantiated once in attention_diagnostics.cpp.
extern template NumericalRank<double> numerical_rank(const Matrix<double>&, double);
extern template NumericalRank<long double> numerical_rank(const Matrix<long double>&, double);
extern template NumericalRank<float128> numerical_rank(const Matrix<float128>&, double);
extern template NumericalRank<mpfr> numerical_rank(const Matrix<mpfr>&, double);

}  // namespace attnflow
