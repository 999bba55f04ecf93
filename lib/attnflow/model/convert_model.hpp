#pragma once
// A model carried over to another scalar type: to differentiate its field (Dual, diagnostics/
// lyapunov.hpp) or to expand it in a Taylor series (integrate/taylor_scalar.hpp).
#include "attnflow/model/model.hpp"

namespace attnflow {

/// The same model in another scalar type, each parameter converted by `convert` (T → U).
template <class U, class T, class F> Model<U> convert_model(const Model<T>& m, F convert) {
  Model<U> u;
  u.info = m.info;
  u.n = m.n;
  u.d = m.d;
  u.beta = convert(m.beta);
  u.causal = m.causal;
  u.sphere_extension = m.sphere_extension;
  u.mask = m.mask;
  for (const auto& h : m.heads)
    u.heads.push_back(Head<U>{h.Q.template converted<U>(convert), h.K.template converted<U>(convert),
                              h.V.template converted<U>(convert)});
  u.W = m.W.template converted<U>(convert);
  u.activation = m.activation;
  u.eta = convert(m.eta);
  u.rescale_V.resize(m.rescale_V.rows(), m.rescale_V.cols());
  for (Eigen::Index i = 0; i < m.rescale_V.size(); ++i) u.rescale_V.data()[i] = convert(m.rescale_V.data()[i]);
  return u;
}

}  // namespace attnflow
