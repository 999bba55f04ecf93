#pragma once
// e^{tV} as a series in time, for the Taylor method: sa-rescaled's keys are e^{tV} z. The generic
// matrix_exponential (model/attention.hpp) scales and squares until a norm is small, a loop whose
// branches a series cannot follow. For M = V·t, V constant, the series is known in closed form:
//   e^{V(t0 + s)} = Σ_k e^{V t0} V^k s^k / k!,
// so each entry becomes a node with given coefficients (Tape::given). Any other matrix marks the
// tape (the integrator then refuses the field). Included by integrate/taylor_impl.hpp before the
// model's field is instantiated on taylor::Var.
#include "attnflow/integrate/taylor_scalar.hpp"
#include "attnflow/model/attention.hpp"

#include <vector>

namespace attnflow::taylor {

template <class T> Matrix<Var<T>> series_matrix_exponential(const Matrix<Var<T>>& M) {
  Tape<T>& tape = Var<T>::tape();
  const int tau = tape.time_node();
  const Eigen::Index d = M.rows();
  // V from the entries: 0 (a constant zero), t itself (1) or a constant times t.
  Matrix<T> V = Matrix<T>::Zero(d, M.cols());
  bool linear_in_t = tau >= 0 && M.rows() == M.cols();
  for (Eigen::Index i = 0; linear_in_t && i < d; ++i)
    for (Eigen::Index j = 0; linear_in_t && j < d; ++j) {
      const Var<T>& e = M(i, j);
      if (e.constant()) {
        linear_in_t = e.v == T(0);
      } else if (e.node == tau) {
        V(i, j) = T(1);
      } else {
        const Node& n = tape.node(e.node);
        linear_in_t = n.op == Op::Scale && n.a == tau;
        if (linear_in_t) V(i, j) = tape.constant_value(n.c);
      }
    }
  if (!linear_in_t) {
    tape.mark_branched("e^{M} of a matrix that is not a constant times t");
    Matrix<Var<T>> values(M.rows(), M.cols());
    const Matrix<T> A = matrix_exponential<T>(M.unaryExpr([](const Var<T>& e) { return e.v; }));
    for (Eigen::Index k = 0; k < A.size(); ++k) values.data()[k] = Var<T>(A.data()[k]);
    return values;
  }
  const T t0 = tape.coefficient0(tau);
  const int order = tape.order();
  std::vector<Matrix<T>> C;  // C_k = e^{V t0} V^k / k!
  C.push_back(matrix_exponential<T>(Matrix<T>(V * t0)));
  for (int k = 1; k <= order; ++k) C.push_back(Matrix<T>(C.back() * V / T(k)));
  Matrix<Var<T>> E(d, d);
  std::vector<T> coefficients(static_cast<std::size_t>(order) + 1);
  for (Eigen::Index i = 0; i < d; ++i)
    for (Eigen::Index j = 0; j < d; ++j) {
      for (int k = 0; k <= order; ++k) coefficients[static_cast<std::size_t>(k)] = C[static_cast<std::size_t>(k)](i, j);
      E(i, j) = Var<T>::given(coefficients);
    }
  return E;
}

}  // namespace attnflow::taylor

namespace attnflow {
#define ATTNFLOW_TAYLOR_MATRIX_EXPONENTIAL(T)                                                               \
  template <> inline Matrix<taylor::Var<T>> matrix_exponential<taylor::Var<T>>(const Matrix<taylor::Var<T>>& M) { \
    return taylor::series_matrix_exponential<T>(M);                                                          \
  }
ATTNFLOW_TAYLOR_MATRIX_EXPONENTIAL(double)
ATTNFLOW_TAYLOR_MATRIX_EXPONENTIAL(long double)
ATTNFLOW_TAYLOR_MATRIX_EXPONENTIAL(float128)
ATTNFLOW_TAYLOR_MATRIX_EXPONENTIAL(mpfr)
#undef ATTNFLOW_TAYLOR_MATRIX_EXPONENTIAL
}  // namespace attnflow
