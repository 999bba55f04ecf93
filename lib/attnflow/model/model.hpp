#pragma once
// One self-attention model with its parameters, as a vector field (continuous models) or a
// layer map (discrete models). Written once as a template on the scalar type.
#include "attnflow/model/attention.hpp"
#include "attnflow/model/model_kind.hpp"
#include "attnflow/model/weights.hpp"

#include <stdexcept>

namespace attnflow {

enum class Activation { Relu, Tanh, Identity };

template <class T> struct Head {
  WeightSchedule<T> Q, K, V;
};

/// A token whose update has zero length cannot be renormalised: the layer map is undefined.
class DegenerateStateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <class T> class Model {
 public:
  const ModelInfo* info = nullptr;
  int n = 0, d = 0;
  T beta = T(1);
  bool causal = false;
  std::vector<Head<T>> heads;
  WeightSchedule<T> W;  // ffn
  Activation activation = Activation::Relu;
  T eta = T(1) / 10;  // euler-renormalize
  Matrix<T> rescale_V;  // sa-rescaled: the constant V of z = e^{-tV} x

  bool discrete() const { return info->discrete; }
  bool on_sphere() const { return info->on_sphere; }

  /// Σ_j P_ij V x_j for every token i: the attention update before any projection.
  /// `keys` are the positions the attention weights are computed from (e^{tV} z for sa-rescaled).
  static Tokens<T> attend(const Tokens<T>& keys, const Tokens<T>& values, const Matrix<T>& Q, const Matrix<T>& K,
                          const Matrix<T>& V, const T& beta, Normalization norm, bool causal) {
    const Matrix<T> P = attention_matrix(keys, Q, K, beta, norm, causal);
    return P * (values * V.transpose());
  }

  /// The attention matrix of head h at a sample (for diagnostics): time t, or layer index t.
  Matrix<T> attention(const Tokens<T>& x, const T& t, int h = 0) const {
    const auto& head = heads.at(static_cast<std::size_t>(h));
    const Tokens<T> keys = info->kind == ModelKind::SaRescaled ? rescaled_positions(x, t) : x;
    if (discrete()) {
      const long k = static_cast<long>(to_double(t));
      return attention_matrix(keys, head.Q.at_layer(k), head.K.at_layer(k), beta, info->normalization, causal);
    }
    return attention_matrix(keys, head.Q.at_time(t), head.K.at_time(t), beta, info->normalization, causal);
  }

  /// dx/dt for the continuous models. x and dxdt are flat n·d states.
  void rhs(const State<T>& xs, State<T>& dxdt, const T& t) const {
    const auto x = as_tokens(xs, n, d);
    const Tokens<T> X = x;
    Tokens<T> out = Tokens<T>::Zero(n, d);
    const Tokens<T> keys = info->kind == ModelKind::SaRescaled ? rescaled_positions(X, t) : X;
    for (const auto& head : heads) {
      const Matrix<T> V = head.V.at_time(t);
      Tokens<T> a = attend(keys, X, head.Q.at_time(t), head.K.at_time(t), V, beta, info->normalization, causal);
      switch (info->kind) {
        case ModelKind::SaRescaled: a -= X * V.transpose(); break;  // Σ_j P_ij V (z_j − z_i), Σ_j P_ij = 1
        case ModelKind::Ffn: {
          a -= X * V.transpose();
          apply_activation(a);
          a = a * W.at_time(t).transpose();
          break;
        }
        default: break;
      }
      out += a;
    }
    if (on_sphere()) project_tangent_rows(X, out);
    dxdt.resize(xs.size());
    as_tokens(dxdt, n, d) = out;
  }

  /// One layer of a discrete model, in place: layer index k (0-based).
  void layer(State<T>& xs, long k) const {
    using std::sqrt;
    auto x = as_tokens(xs, n, d);
    const Tokens<T> X = x;
    const auto& head = heads.front();
    const Tokens<T> a = attend(X, X, head.Q.at_layer(k), head.K.at_layer(k), head.V.at_layer(k), beta,
                               info->normalization, causal);
    const T step = info->kind == ModelKind::EulerRenormalize ? eta : T(1);
    Tokens<T> y = X + a * step;
    for (int i = 0; i < n; ++i) {
      const T norm = sqrt(y.row(i).squaredNorm());
      if (!(norm > T(0)))
        throw DegenerateStateError("token " + std::to_string(i) + " has zero length at layer " + std::to_string(k + 1) +
                                   ": x + update = 0 cannot be normalised");
      y.row(i) /= norm;
    }
    x = y;
  }

 private:
  Tokens<T> rescaled_positions(const Tokens<T>& z, const T& t) const {
    const Matrix<T> E = matrix_exponential<T>(rescale_V * t);
    return z * E.transpose();
  }

  void apply_activation(Tokens<T>& a) const {
    using std::tanh;
    for (Eigen::Index i = 0; i < a.size(); ++i) {
      T& v = a.data()[i];
      if (activation == Activation::Relu) v = v > T(0) ? v : T(0);
      else if (activation == Activation::Tanh) v = tanh(v);
    }
  }
};

/// Builds the model a config describes, with every parameter read exactly in T.
template <class T> Model<T> build_model(const SimConfig& c) {
  Model<T> m;
  m.info = c.model;
  m.n = c.n;
  m.d = c.d;
  m.beta = from_decimal<T>(c.beta);
  m.causal = c.causal;
  m.eta = from_decimal<T>(c.eta);
  // Continuous models: a per-layer list of L matrices splits [0, t_end] into L equal pieces.
  for (const auto& hs : c.heads) {
    auto duration = [&](const WeightSpec& w) {
      return w.values.empty() ? T(1) : from_decimal<T>(c.t_end()) / T(static_cast<long>(w.values.size()));
    };
    m.heads.push_back(Head<T>{WeightSchedule<T>(hs.Q, c.d, duration(hs.Q)), WeightSchedule<T>(hs.K, c.d, duration(hs.K)),
                              WeightSchedule<T>(hs.V, c.d, duration(hs.V))});
  }
  m.W = WeightSchedule<T>(c.W, c.d, c.W.values.empty() ? T(1) : from_decimal<T>(c.t_end()) / T(long(c.W.values.size())));
  m.activation = c.activation == "tanh" ? Activation::Tanh : c.activation == "identity" ? Activation::Identity
                                                                                         : Activation::Relu;
  if (c.model->kind == ModelKind::SaRescaled) m.rescale_V = m.heads.front().V.constant_value();
  return m;
}

}  // namespace attnflow
