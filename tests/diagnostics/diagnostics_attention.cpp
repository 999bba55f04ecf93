#include <boost/test/unit_test.hpp>

#include "attnflow/diagnostics/attention_diagnostics.hpp"
#include "attnflow/model/attention.hpp"

#include <cmath>

using namespace attnflow;

namespace {
/// Boolean row-stochastic matrix with row i equal to e_{cols[i]}.
template <class T> Matrix<T> boolean_matrix(const std::vector<int>& cols) {
  const auto n = static_cast<Eigen::Index>(cols.size());
  Matrix<T> P = Matrix<T>::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i) P(i, cols[i]) = T(1);
  return P;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(diagnostics_attention)

BOOST_AUTO_TEST_CASE(boolean_matrix_has_distance_zero_and_rank_equal_to_distinct_argmax_columns) {
  const std::vector<int> cols = {2, 2, 0, 3, 0, 2};
  const auto P = boolean_matrix<double>(cols);
  const auto a = diagnose_attention(P);
  BOOST_TEST(a.boolean.max_row_distance == 0.0);
  BOOST_TEST(a.boolean.frobenius_distance == 0.0);
  BOOST_TEST(a.boolean.nearest_column == cols, boost::test_tools::per_element());
  BOOST_TEST(a.rank.rank == 3);
  BOOST_TEST(a.rank.rank_at_sqrt_eps == 3);
  BOOST_TEST(a.leaders.columns() == (std::vector<int>{0, 2, 3}), boost::test_tools::per_element());
  BOOST_TEST(a.leaders.leaders.at(1).rows_captured() == 3);
  BOOST_TEST(a.leaders.leaders.at(0).rows == (std::vector<int>{2, 4}), boost::test_tools::per_element());
  BOOST_TEST(a.leaders.ambiguous_rows.empty());
  // Singular values of a Boolean matrix are √(rows captured) per leader.
  BOOST_TEST(std::abs(a.rank.singular_values.at(0) - std::sqrt(3.0)) < 1e-14);
  BOOST_TEST(std::abs(a.rank.singular_values.at(1) - std::sqrt(2.0)) < 1e-14);
}

BOOST_AUTO_TEST_CASE(boolean_matrix_in_mpfr) {
  MpfrDigitsScope scope(40);
  const auto P = boolean_matrix<mpfr>({1, 1, 1, 4, 4});
  const auto a = diagnose_attention(P);
  BOOST_TEST(a.boolean.frobenius_distance == 0);
  BOOST_TEST(a.rank.rank == 2);
  BOOST_TEST(to_double(a.rank.sqrt_eps) < 1e-19);
  BOOST_TEST(a.to_json().at("rank").at("singular_values").at(0).is_string());
}

BOOST_AUTO_TEST_CASE(uniform_matrix_has_rank_one_and_known_distance) {
  const int n = 5;
  const Matrix<double> P = Matrix<double>::Constant(n, n, 1.0 / n);
  const auto a = diagnose_attention(P);
  BOOST_TEST(a.rank.rank == 1);
  BOOST_TEST(a.rank.rank_at_sqrt_eps == 1);
  // ‖p − e_j‖² = (1 − 1/n)² + (n − 1)/n² = 1 − 1/n for every row.
  BOOST_TEST(std::abs(a.boolean.max_row_distance - std::sqrt(1.0 - 1.0 / n)) < 1e-15);
  BOOST_TEST(std::abs(a.boolean.frobenius_distance - std::sqrt(n * (1.0 - 1.0 / n))) < 1e-14);
  BOOST_TEST(a.boolean.ambiguous_rows.size() == 5u);  // every argmax is a tie
  BOOST_TEST(a.leaders.leaders.empty());
}

BOOST_AUTO_TEST_CASE(mixture_of_two_rows_has_rank_two) {
  Vector<double> p(4), q(4);
  p << 0.7, 0.1, 0.1, 0.1;
  q << 0.05, 0.05, 0.3, 0.6;
  Matrix<double> P(4, 4);
  const double alpha[] = {1.0, 0.0, 0.25, 0.8};
  for (int i = 0; i < 4; ++i) P.row(i) = (alpha[i] * p + (1 - alpha[i]) * q).transpose();
  const auto r = numerical_rank(P);
  BOOST_TEST(r.rank == 2);
  BOOST_TEST(r.rank_at_sqrt_eps == 2);
  BOOST_TEST(numerical_rank(P, 0.9).rank == 1);  // the tolerance is honoured
}

BOOST_AUTO_TEST_CASE(d1_rows_captured_by_extreme_tokens) {
  // P_ij ∝ exp(β x_i x_j): a token right of 0 attends mostly to the rightmost token, a token
  // left of 0 to the leftmost; a token at exactly 0 attends uniformly and is exceptional.
  Tokens<double> x(6, 1);
  x << 0.3, -1, 0, 1, -0.5, 0.7;
  const Matrix<double> I1 = Matrix<double>::Identity(1, 1);
  const Matrix<double> P = attention_matrix<double>(x, I1, I1, 50.0);
  const auto a = diagnose_attention(P, &x);
  BOOST_REQUIRE(a.extremes.has_value());
  const auto& e = *a.extremes;
  BOOST_TEST(e.leftmost == 1);
  BOOST_TEST(e.rightmost == 3);
  BOOST_TEST(e.to_rightmost == (std::vector<int>{0, 3, 5}), boost::test_tools::per_element());
  BOOST_TEST(e.to_leftmost == (std::vector<int>{1, 4}), boost::test_tools::per_element());
  BOOST_TEST(e.exceptional == (std::vector<int>{2}), boost::test_tools::per_element());
  BOOST_TEST(e.at_most_one_exceptional());
  BOOST_TEST(a.leaders.columns() == (std::vector<int>{1, 3}), boost::test_tools::per_element());
  BOOST_TEST(a.leaders.ambiguous_rows == (std::vector<int>{2}), boost::test_tools::per_element());
  // The extreme token's own row is nearly Boolean at β = 50: e^{-50·(1-0.7)} ≈ 3e-7 leaks.
  BOOST_TEST(e.distance_to_rightmost.at(3) < 1e-6);
  BOOST_TEST(e.distance_to_leftmost.at(3) > 1.0);
  BOOST_TEST_MESSAGE(a.summary());
}

BOOST_AUTO_TEST_CASE(two_interior_leaders_are_two_exceptional_rows) {
  const auto P = boolean_matrix<double>({0, 2, 2, 1, 0});
  Tokens<double> x(5, 1);
  x << -2, 2, -1, 1, 0;  // leftmost 0, rightmost 1; rows 1, 2 look at token 2 (interior)
  const auto e = extreme_token_capture(P, x);
  BOOST_TEST(e.exceptional == (std::vector<int>{1, 2}), boost::test_tools::per_element());
  BOOST_TEST(!e.at_most_one_exceptional());
  BOOST_CHECK_THROW(extreme_token_capture(P, Tokens<double>(5, 2)), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
