#pragma once
// One self-attention model with its parameters, as a vector field (continuous models) or a
// layer map (discrete models). Written once as a template on the scalar type.
#include "attnflow/model/attention.hpp"
#include "attnflow/model/attention_kernel.hpp"
#include "attnflow/model/recorded_attention.hpp"
#include "attnflow/config/model_kind.hpp"
#include "attnflow/model/weights.hpp"

#include <atomic>
#include <memory>
#include <stdexcept>

namespace attnflow {

enum class Activation { Relu, Tanh, Identity };

template <class T> struct Head { WeightSchedule<T> Q, K, V; };

/// A token whose update has zero length cannot be renormalised: the layer map is undefined.
class DegenerateStateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What a Model reuses between right-hand-side calls: the kernel's workspace, the weights of
/// interpolated schedules and e^{tV} (sa-rescaled) at the last time seen.
template <class T> struct ModelCache {
  AttentionWorkspace<T> attn;
  std::vector<Matrix<T>> q, k, v;  // per head; filled only for schedules that are not stored
  std::vector<WeightStructure> structure;  // per head, of the weights at time t
  Matrix<T> w, expm;
  T t, tmp;
  bool valid = false;
  long precision = -1;
};

/// A Model's private cache. Copies start empty (an assigned-to model forgets its old weights); a
/// call made while another thread holds it gets a temporary cache (correct, only slower), so a
/// const Model stays safe to share.
template <class T> class CacheSlot {
 public:
  CacheSlot() = default;
  CacheSlot(const CacheSlot&) {}
  CacheSlot& operator=(const CacheSlot&) {
    cache_.reset();
    return *this;
  }
  template <class F> void with(F&& f) {
    if (busy_.exchange(true, std::memory_order_acquire)) {
      ModelCache<T> local;
      f(local);
      return;
    }
    struct Release {
      std::atomic<bool>& busy;
      ~Release() { busy.store(false, std::memory_order_release); }
    } release{busy_};
    if (!cache_) cache_ = std::make_unique<ModelCache<T>>();
    f(*cache_);
  }

 private:
  std::unique_ptr<ModelCache<T>> cache_;
  std::atomic<bool> busy_{false};
};

template <class T> class Model {
 public:
  const ModelInfo* info = nullptr;
  int n = 0, d = 0;
  T beta = T(1);
  bool causal = false;
  std::vector<std::uint8_t> mask;  // SimConfig::mask: n×n, the keys each token sees; empty: all
  std::vector<Head<T>> heads;
  WeightSchedule<T> W;  // ffn
  Activation activation = Activation::Relu;
  T eta = T(1) / 10;    // euler-renormalize
  bool normalize_output = false;  // attention-map
  Matrix<T> rescale_V;  // sa-rescaled: the constant V of z = e^{-tV} x
  /// on_sphere(): the field off the sphere (attention.hpp). Plain is taken by the reference path
  /// only, the one rhs() then follows.
  SphereExtension sphere_extension = SphereExtension::NormInvariant;

  bool discrete() const { return info->discrete; }
  bool on_sphere() const { return info->on_sphere; }
  bool attends_to_directions() const { return attnflow::attends_to_directions(info->kind); }
  /// The Euclidean flows, whose logits grow like e^{2t}, take them relative to a reference token
  /// (RelativeLogits in attention.hpp).
  bool relative_logits() const {
    return (info->kind == ModelKind::SaEuclid || info->kind == ModelKind::SaRescaled) &&
           info->normalization == Normalization::Softmax;
  }

  /// Σ_j P_ij V x_j for every token i: the attention update before any projection.
  /// `keys` are the positions the attention weights are computed from (e^{tV} z for sa-rescaled).
  static Tokens<T> attend(const Tokens<T>& keys, const Tokens<T>& values, const Matrix<T>& Q, const Matrix<T>& K,
                          const Matrix<T>& V, const T& beta, Normalization norm, bool causal,
                          const RelativeLogits<T>& relative = {}, const std::vector<std::uint8_t>* mask = nullptr) {
    if constexpr (AttentionForm<T>::recorded)
      if (!relative.positions) return attend_recorded(keys, Tokens<T>(values * V.transpose()), Q, K, beta, norm, causal, mask);
    const Matrix<T> P = attention_matrix(keys, Q, K, beta, norm, causal, relative, mask);
    return P * (values * V.transpose());
  }

  /// The attention matrix of head h at a sample (for diagnostics): time t, or layer index t.
  Matrix<T> attention(const Tokens<T>& x, const T& t, int h = 0) const;

  /// dx/dt for the continuous models. x and dxdt are flat n·d states. The fast kernel
  /// (attention_kernel.hpp) for floating and MPFR scalars, the reference otherwise and under a
  /// general mask (the fast kernel knows the causal one only).
  void rhs(const State<T>& xs, State<T>& dxdt, const T& t) const;

  /// dx/dt through the plain dense kernel (attention_matrix): the definition the fast kernel is
  /// tested against.
  void reference_rhs(const State<T>& xs, State<T>& dxdt, const T& t) const;

  /// Every token's direction x_i/|x_i|; a token at the origin has none (pre-LN and Peri-LN are
  /// undefined there).
  static Tokens<T> directions(Tokens<T> x) {
    unit_rows(x, [](int i) {
      return "token " + std::to_string(i) + " is at the origin: its direction, which the attention of pre-LN and Peri-LN reads, is undefined";
    });
    return x;
  }

  /// One layer of a discrete model, in place: layer index k (0-based).
  void layer(State<T>& xs, long k) const;

 private:
  mutable CacheSlot<T> cache_;

  /// Divides every row by its length; a row of length zero (not certainly positive, for an
  /// interval) has no direction: DegenerateStateError with why(i).
  template <class Why> static void unit_rows(Tokens<T>& y, const Why& why) {
    using std::sqrt;
    for (Eigen::Index i = 0; i < y.rows(); ++i) {
      const T norm = sqrt(y.row(i).squaredNorm());
      if (!ScalarOrder<T>::certainly_positive(norm)) throw DegenerateStateError(why(static_cast<int>(i)));
      y.row(i) /= norm;
    }
  }

  /// The state x (z for sa-rescaled), the keys the logits are formed from (e^{tV} z for
  /// sa-rescaled) and, for the Euclidean flows, how to take them relative to a reference token.
  struct Positions {
    Tokens<T> keys;
    Matrix<T> map;  // e^{tV} (sa-rescaled)
    TokensView<T> state;
    bool use_relative, use_map;
    Positions(const Model& m, const Tokens<T>& x, const T& t)
        : state(x.data(), x.rows(), x.cols()),
          use_relative(m.relative_logits()),
          use_map(m.info->kind == ModelKind::SaRescaled) {
      if (use_map) map = matrix_exponential<T>(m.rescale_V * t);
      keys = use_map ? Tokens<T>(x * map.transpose()) : x;
    }
    RelativeLogits<T> relative() const {
      return use_relative ? RelativeLogits<T>{&state, use_map ? &map : nullptr} : RelativeLogits<T>{};
    }
  };

  /// Brings the cache to time t: interpolated weights and e^{tV} are recomputed only when t moved.
  void refresh(ModelCache<T>& c, const T& t) const {
    if constexpr (is_mpfr<T>::value) {
      const long digits = static_cast<long>(mpfr::default_precision());
      if (c.precision != digits) {  // numbers keep the precision they were made with: remake them
        c = ModelCache<T>();
        c.precision = c.attn.precision = digits;  // (so the kernel's prepare() keeps ws.head etc.)
      }
    }
    if (c.valid && c.t == t) return;
    c.q.resize(heads.size()), c.k.resize(heads.size()), c.v.resize(heads.size());
    c.structure.resize(heads.size());
    for (std::size_t h = 0; h < heads.size(); ++h) {
      const Head<T>& head = heads[h];
      if (!head.Q.stored_at_time(t)) c.q[h] = head.Q.at_time(t);
      if (!head.K.stored_at_time(t)) c.k[h] = head.K.at_time(t);
      if (!head.V.stored_at_time(t)) c.v[h] = head.V.at_time(t);
      // Constant weights keep the structure found at the first time; the others change with t.
      if (!c.valid || !(head.Q.constant() && head.K.constant() && head.V.constant()))
        c.structure[h] =
            WeightStructure::of(weight(head.Q, t, c.q[h]), weight(head.K, t, c.k[h]), weight(head.V, t, c.v[h]));
    }
    if (info->kind == ModelKind::Ffn && !W.stored_at_time(t)) c.w = W.at_time(t);
    if (info->kind == ModelKind::SaRescaled) c.expm = matrix_exponential<T>(rescale_V * t);
    c.t = t;
    c.valid = true;
  }
  static const Matrix<T>& weight(const WeightSchedule<T>& s, const T& t, const Matrix<T>& cached) {
    const Matrix<T>* stored = s.stored_at_time(t);
    return stored ? *stored : cached;
  }

  /// dst (= or +=) src, element by element, in place.
  static void combine(TokensMap<T>& dst, const Tokens<T>& src, bool accumulate) {
    for (Eigen::Index i = 0; i < src.size(); ++i) {
      if (accumulate)
        inplace::add(dst.data()[i], dst.data()[i], src.data()[i]);
      else
        inplace::set(dst.data()[i], src.data()[i]);
    }
  }

  void fast_rhs(const State<T>& xs, State<T>& dxdt, const T& t, ModelCache<T>& c) const {
    refresh(c, t);
    AttentionWorkspace<T>& ws = c.attn;
    const TokensView<T> X(xs.data(), n, d);
    TokensMap<T> out(dxdt.data(), n, d);
    const bool rescaled = info->kind == ModelKind::SaRescaled;
    if (rescaled) kernel::multiply_transposed(X, c.expm, ws.sized(ws.keys, n, d), c.tmp);  // e^{tV} z
    const TokensView<T> keys = rescaled ? view(ws.keys) : X;
    // sa-rescaled and ffn subtract V z_i (Σ_j P_ij = 1) and ffn transforms further: per head
    // into ws.head; the others add their heads straight into the output.
    const bool per_head = rescaled || info->kind == ModelKind::Ffn;
    for (std::size_t h = 0; h < heads.size(); ++h) {
      const Matrix<T>& Q = weight(heads[h].Q, t, c.q[h]);
      const Matrix<T>& K = weight(heads[h].K, t, c.k[h]);
      const Matrix<T>& V = weight(heads[h].V, t, c.v[h]);
      const bool project = on_sphere() && h + 1 == heads.size();
      KernelFlags flags{info->normalization, causal, h > 0, &c.structure[h]};
      const RelativeLogits<T> relative =
          relative_logits() ? RelativeLogits<T>{&X, rescaled ? &c.expm : nullptr} : RelativeLogits<T>{};
      if (!per_head) {
        attention_kernel<T>(keys, X, Q, K, V, beta, flags, project ? &X : nullptr, ws, out, relative);
        continue;
      }
      flags.accumulate = false;
      Tokens<T>& a = ws.sized(ws.head, n, d);
      TokensMap<T> am = view_mut(a);
      attention_kernel<T>(keys, X, Q, K, V, beta, flags, nullptr, ws, am, relative);
      // The kernel left V x_j for every j in ws.vx: a_i −= V x_i reuses it.
      for (Eigen::Index i = 0; i < a.size(); ++i) inplace::sub(a.data()[i], a.data()[i], ws.vx.data()[i]);
      if (info->kind == ModelKind::Ffn) {
        apply_activation_in_place(a);
        Tokens<T>& b = ws.sized(ws.tmp, n, d);
        kernel::multiply_transposed(a, weight(W, t, c.w), b, c.tmp);
        combine(out, b, h > 0);
      } else {
        combine(out, a, h > 0);
      }
      if (project)
        for (Eigen::Index i = 0; i < n; ++i) kernel::project_row<T>(X.row(i), out.row(i), ws.lanes.front());
    }
  }

  void apply_activation_in_place(Tokens<T>& a) const {
    for (Eigen::Index i = 0; i < a.size(); ++i) {
      T& v = a.data()[i];
      if (activation == Activation::Relu) {
        if (!inplace::positive(v)) inplace::set_zero(v);  // NaN too, as the reference
      } else if (activation == Activation::Tanh) {
        inplace::tanh(v, v);
      }
    }
  }

  void apply_activation(Tokens<T>& a) const {
    using std::tanh;
    for (Eigen::Index i = 0; i < a.size(); ++i) {
      T& v = a.data()[i];
      if (activation == Activation::Relu)
        v = v > T(0) ? v : T(0);
      else if (activation == Activation::Tanh)
        v = tanh(v);
    }
  }
};

template <class T> Matrix<T> Model<T>::attention(const Tokens<T>& x, const T& t, int h) const {
  const auto& head = heads.at(static_cast<std::size_t>(h));
  if (discrete()) {
    const long k = static_cast<long>(to_double(t));
    return attention_matrix(x, head.Q.at_layer(k), head.K.at_layer(k), beta, info->normalization, causal, {},
                            &mask);
  }
  if (attends_to_directions())
    return attention_matrix(directions(x), head.Q.at_time(t), head.K.at_time(t), beta, info->normalization, causal,
                            {}, &mask);
  const Positions p(*this, x, t);
  return attention_matrix(p.keys, head.Q.at_time(t), head.K.at_time(t), beta, info->normalization, causal,
                          p.relative(), &mask);
}

template <class T> void Model<T>::rhs(const State<T>& xs, State<T>& dxdt, const T& t) const {
  if constexpr (has_fast_kernel<T>) {
    if (!mask.empty() || attends_to_directions() || sphere_extension == SphereExtension::Plain)
      return reference_rhs(xs, dxdt, t);
    dxdt.resize(xs.size());
    cache_.with([&](ModelCache<T>& c) { fast_rhs(xs, dxdt, t, c); });
  } else {
    reference_rhs(xs, dxdt, t);
  }
}

template <class T> void Model<T>::reference_rhs(const State<T>& xs, State<T>& dxdt, const T& t) const {
  const auto x = as_tokens(xs, n, d);
  const Tokens<T> X = x;
  Tokens<T> out = Tokens<T>::Zero(n, d);
  const Positions p(*this, X, t);
  const Tokens<T> theta = attends_to_directions() ? directions(X) : Tokens<T>();
  for (const auto& head : heads) {
    const Matrix<T> V = head.V.at_time(t);
    Tokens<T> a = attends_to_directions()
                      ? attend(theta, theta, head.Q.at_time(t), head.K.at_time(t), V, beta, info->normalization,
                               causal, {}, &mask)
                      : attend(p.keys, X, head.Q.at_time(t), head.K.at_time(t), V, beta, info->normalization, causal,
                               p.relative(), &mask);
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
  if (on_sphere()) project_tangent_rows(X, out, sphere_extension);
  if (normalizes_velocity(info->kind))
    unit_rows(out, [](int i) {
      return "the attention output of token " + std::to_string(i) +
             " is zero: its unit velocity a_i/|a_i|, which Peri-LN moves it by, is undefined";
    });
  dxdt.resize(xs.size());
  as_tokens(dxdt, n, d) = out;
}

template <class T> void Model<T>::layer(State<T>& xs, long k) const {
  using std::sqrt;
  auto x = as_tokens(xs, n, d);
  const Tokens<T> X = x;
  const auto& head = heads.front();
  const Tokens<T> a = attend(X, X, head.Q.at_layer(k), head.K.at_layer(k), head.V.at_layer(k), beta,
                             info->normalization, causal, {}, &mask);
  if (info->kind == ModelKind::AttentionMap) {  // no residual: the attention output itself
    Tokens<T> y = a;
    if (normalize_output)
      unit_rows(y, [k](int i) {
        return "the attention output of token " + std::to_string(i) + " at layer " + std::to_string(k + 1) +
               " is zero: normalize_output has no direction to give it";
      });
    x = y;
    return;
  }
  const T step = info->kind == ModelKind::EulerRenormalize ? eta : T(1);
  Tokens<T> y = X + a * step;
  unit_rows(y, [k](int i) {
    return "token " + std::to_string(i) + " has zero length at layer " + std::to_string(k + 1) +
           ": x + update = 0 cannot be normalised";
  });
  x = y;
}

/// β of a config in T: its decimal, or γ log n formed in T ("beta": {"log_n": γ}).
template <class T> T model_beta(const SimConfig& c) {
  using std::log;
  if (c.beta_log_n.empty()) return from_decimal<T>(c.beta);
  return from_decimal<T>(c.beta_log_n) * T(log(T(c.n)));
}

/// Builds the model a config describes, with every parameter read exactly in T.
template <class T> Model<T> build_model(const SimConfig& c) {
  Model<T> m;
  m.info = c.model;
  m.n = c.n;
  m.d = c.d;
  m.beta = model_beta<T>(c);
  m.causal = c.causal;
  m.normalize_output = c.normalize_output;
  m.mask = c.mask;
  m.eta = from_decimal<T>(c.eta);
  // Continuous models: a per-layer list of L matrices splits [0, t_end] into L equal pieces.
  for (const auto& hs : c.heads) {
    auto duration = [&](const WeightSpec& w) {
      return w.values.empty() ? T(1) : from_decimal<T>(c.t_end()) / T(static_cast<long>(w.values.size()));
    };
    m.heads.push_back(Head<T>{WeightSchedule<T>(hs.Q, c.d, duration(hs.Q)),
                              WeightSchedule<T>(hs.K, c.d, duration(hs.K)),
                              WeightSchedule<T>(hs.V, c.d, duration(hs.V))});
  }
  m.W =
      WeightSchedule<T>(c.W, c.d, c.W.values.empty() ? T(1) : from_decimal<T>(c.t_end()) / T(long(c.W.values.size())));
  m.activation = c.activation == "tanh"       ? Activation::Tanh
                 : c.activation == "identity" ? Activation::Identity
                                              : Activation::Relu;
  if (c.model->kind == ModelKind::SaRescaled) m.rescale_V = m.heads.front().V.constant_value();
  return m;
}

// The four precisions every layer runs models in are instantiated once, in model/model_instances.cpp,
// instead of in each unit that integrates or diagnoses (docs/performance.md, "Where the program's
// compile time goes"). That is why rhs, reference_rhs, attention and layer are defined outside the
// class: a member defined inside it is instantiated in every unit that calls it, extern or not.
extern template class Model<double>;
extern template class Model<long double>;
extern template class Model<float128>;
extern template class Model<mpfr>;
extern template Model<double> build_model<double>(const SimConfig&);
extern template Model<long double> build_model<long double>(const SimConfig&);
extern template Model<float128> build_model<float128>(const SimConfig&);
extern template Model<mpfr> build_model<mpfr>(const SimConfig&);

}  // namespace attnflow
