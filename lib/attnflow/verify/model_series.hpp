#pragma once
// The rigorous twin of any continuous model, built from its one definition: Model<T>::rhs is
// recorded on taylor::Var over the interval type (the recording scalar the floating `taylor`
// integrator uses), and the Taylor coefficients of the solution are then computed from the
// recorded graph by the automatic-differentiation recurrences, node by node, in interval
// arithmetic — on plain intervals, or on Jet<I> (the gradient by the start coordinates, for the
// Jacobian of the flow). The kv / CAPD construction: the field is written once, and the
// enclosure machinery of lohner.hpp (a-priori box, Lohner's QR, precise low orders) serves every
// model through this series, with no recurrences written by hand.
//
// What the graph cannot follow is refused with the reason, never approximated: an order
// comparison, abs or floor involving the state (relu at its kink, interpolated weights, the
// scaling loop of a non-diagonal matrix exponential) marks the recording `branched`; log and
// functions of time given as series are not among the operations enclosed here.
//
// Constants (β, the weights) are the enclosures of their decimals, and every operation with them
// folds at recording time in interval arithmetic (taylor::Var folds constants); the softmax shift
// by a row's maximum uses a point inside it, which cancels exactly for any point.
//
// The fields enclosed are autonomous (constant weights); sa-rescaled, whose field depends on t
// through e^{tV}, is sa-euclid in the co-moving frame, and is enclosed as sa-euclid.
// Internal to lib/attnflow/verify/*.cpp (it includes interval.hpp).
#include "attnflow/config/model_kind.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/integrate/taylor_matrix_exponential.hpp"  // Var<double>, Var<mpfr>: the one e^{tV} every TU sees
#include "attnflow/integrate/taylor_scalar.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/verify/interval.hpp"
#include "attnflow/verify/prove.hpp"
#include "attnflow/verify/sphere_series.hpp"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace attnflow::taylor {
/// An interval constant is 0 or 1 only when it is that number alone (Var's folding), and the same
/// as another only with the same ends (symmetric logits, recorded_attention.hpp).
template <> struct ConstantTest<verify::DInterval> {
  static bool is(const verify::DInterval& c, int value) { return c.lower() == value && c.upper() == value; }
  static bool same(const verify::DInterval& a, const verify::DInterval& b) {
    return a.lower() == b.lower() && a.upper() == b.upper();
  }
};
template <> struct ConstantTest<verify::MInterval> {
  static bool is(const verify::MInterval& c, int value) {
    return verify::iv::lower(c) == value && verify::iv::upper(c) == value;
  }
  static bool same(const verify::MInterval& a, const verify::MInterval& b) {
    return verify::iv::lower(a) == verify::iv::lower(b) && verify::iv::upper(a) == verify::iv::upper(b);
  }
};
/// floor is monotone and exact on doubles; a built-in number is taken at the midpoint (a layer
/// index, never reached for the constant weights enclosed here).
template <> struct ValueOps<verify::DInterval> {
  static verify::DInterval floor(const verify::DInterval& x) {
    return verify::DInterval(std::floor(x.lower()), std::floor(x.upper()));
  }
  template <class U> static U convert(const verify::DInterval& x) { return static_cast<U>(verify::iv::mid(x)); }
};
}  // namespace attnflow::taylor

namespace attnflow::verify {

/// Thrown when the field cannot be enclosed by this series (the reason says why); the flow
/// provers turn it into a refusal of the instance.
class NotAnalyticError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <class T> constexpr bool is_interval_v = std::is_same_v<T, DInterval> || std::is_same_v<T, MInterval>;

/// The number a decimal names, in T: the enclosure of the decimal for an interval type, the
/// nearest value for a point type (the point twin only chooses step sizes).
template <class T> T decimal_value(const std::string& s) {
  if constexpr (is_interval_v<T>)
    return iv::decimal<T>(s);
  else
    return from_decimal<T>(s);
}

/// The model of a general flow instance (ProveInstance::general()) on the recording scalar over T.
/// `extension`: a flow on the sphere off it (model/attention.hpp). Enclosures of solutions from a
/// start on the sphere take Plain (flow_problem.hpp); the equilibria keep the model's default,
/// whose derivative they read across the sphere too.
template <class T> class ModelField {
 public:
  using V = taylor::Var<T>;

  explicit ModelField(const ProveInstance& in, SphereExtension extension = SphereExtension::NormInvariant)
      : instance_(in) {
    const ModelInfo& info = model_info(in.model);
    if (info.discrete) throw std::logic_error("ModelField: a layer model has no vector field");
    model_.info = &info;
    model_.sphere_extension = extension;
    model_.n = in.n;
    model_.d = in.d;
    model_.beta = V(decimal_value<T>(in.beta));
    model_.causal = in.causal;
    for (const HeadWeights& h : in.heads)
      model_.heads.push_back(Head<V>{WeightSchedule<V>::constant_matrix(matrix(h.Q)),
                                     WeightSchedule<V>::constant_matrix(matrix(h.K)),
                                     WeightSchedule<V>::constant_matrix(matrix(h.V))});
    if (info.kind == ModelKind::Ffn) {
      model_.W = WeightSchedule<V>::constant_matrix(matrix(in.W));
      model_.activation = in.activation == "tanh" ? Activation::Tanh : in.activation == "identity"
                                                                          ? Activation::Identity
                                                                          : Activation::Relu;
    }
    if (info.kind == ModelKind::SaRescaled) throw std::logic_error("ModelField: sa-rescaled depends on time");
  }

  const Model<V>& model() const { return model_; }
  const ProveInstance& instance() const { return instance_; }
  SphereExtension sphere_extension() const { return model_.sphere_extension; }
  int n() const { return instance_.n; }
  int d() const { return instance_.d; }
  int state_size() const { return n() * d(); }

 private:
  Matrix<V> matrix(const std::vector<std::string>& m) const {
    const int d = instance_.d;
    Matrix<V> out(d, d);
    for (int a = 0; a < d; ++a)
      for (int b = 0; b < d; ++b) out(a, b) = V(decimal_value<T>(m.at(static_cast<std::size_t>(a * d + b))));
    return out;
  }

  ProveInstance instance_;
  Model<V> model_;
};

// ---- the operations the node recurrences need beyond sphere_series.hpp's, for I and Jet<I> ----
template <class I> inline void add_const(I& a, const I& c) { a += c; }
template <class I> inline void add_const(Jet<I>& a, const I& c) { a.v += c; }
template <class I> inline void div_const(I& a, const I& c) { a /= c; }
template <class I> inline void div_const(Jet<I>& a, const I& c) {
  a.v /= c;
  for (auto& g : a.g) g /= c;
}
/// out = c / b.
template <class I> inline void const_div_into(I& out, const I& c, const I& b) { out = c / b; }
template <class I> inline void const_div_into(Jet<I>& out, const I& c, const Jet<I>& b) {
  out.v = c / b.v;
  out.g.resize(b.g.size());
  for (std::size_t l = 0; l < b.g.size(); ++l) out.g[l] = -(out.v * b.g[l]) / b.v;
}
template <class I> inline void sqrt_into(I& out, const I& a) {
  using std::sqrt;
  out = sqrt(a);
}
template <class I> inline void sqrt_into(Jet<I>& out, const Jet<I>& a) {
  using std::sqrt;
  out.v = sqrt(a.v);
  out.g.resize(a.g.size());
  const I two_s = out.v + out.v;
  for (std::size_t l = 0; l < a.g.size(); ++l) out.g[l] = a.g[l] / two_s;
}
template <class I> inline void tanh_into(I& out, const I& a) {
  using std::tanh;
  out = tanh(a);
}
template <class I> inline void tanh_into(Jet<I>& out, const Jet<I>& a) {
  using std::tanh;
  out.v = tanh(a.v);
  out.g.resize(a.g.size());
  const I w = I(1) - out.v * out.v;
  for (std::size_t l = 0; l < a.g.size(); ++l) out.g[l] = w * a.g[l];
}

// ---- the Cauchy sums of the node recurrences ----
// Each takes one node's coefficients as a contiguous array (ModelSeries keeps them node-major) and
// is a small function of its own, flattened, so that the interval product and sum inline into its
// loop; inside the sweep's large switch the compiler calls them out of line, once per term (bench
// keys prove8_seconds and prove32x8_seconds). The terms are summed in the recurrences' order, m ascending.

/// acc += Σ_{m=lo..hi} a[m]·b[k−m].
template <class S>
[[gnu::flatten]] inline void add_cauchy(S& acc, const S* a, const S* b, int lo, int hi, int k) {
  for (int m = lo; m <= hi; ++m) add_mul(acc, a[m], b[k - m]);
}
/// acc −= Σ_{m=lo..hi} a[m]·b[k−m].
template <class S>
[[gnu::flatten]] inline void sub_cauchy(S& acc, const S* a, const S* b, int lo, int hi, int k) {
  for (int m = lo; m <= hi; ++m) sub_mul(acc, a[m], b[k - m]);
}
/// acc += Σ_{m=1..k} (m·a[m])·b[k−m] (exp and tanh: y' = a'·w), m an interval of type I; tmp is scratch.
template <class I, class S>
[[gnu::flatten]] inline void add_weighted_cauchy(S& acc, S& tmp, const S* a, const S* b, int k) {
  for (int m = 1; m <= k; ++m) {
    tmp = a[m];
    scale(tmp, I(m));
    add_mul(acc, tmp, b[k - m]);
  }
}

/// Coefficients x[0..order] of the solution through x0 of the model's flow, for S = I (a box)
/// or S = Jet<I> (a box with gradients by `dirs` start coordinates): SphereSeries's interface.
template <class I, class S> class ModelSeries {
 public:
  using V = taylor::Var<I>;
  ModelSeries(std::shared_ptr<const ModelField<I>> f, int dirs) : f_(std::move(f)), dirs_(dirs) {}

  void compute(const std::vector<S>& x0, int order) {
    const int Ns = f_->state_size(), N = f_->n() * f_->d();
    record(x0);
    resize(order, stored_);
    for (int q = 0; q < Ns; ++q) x_[static_cast<std::size_t>(q)] = x0[static_cast<std::size_t>(q)];
    for (int k = 0; k < order; ++k) {
      sweep(k);
      S* next = &x_[static_cast<std::size_t>(k + 1) * Ns];
      for (int q = 0; q < N; ++q) {
        S& t = next[q];
        const int node = out_[static_cast<std::size_t>(q)];
        if (node >= 0) {
          t = at(node, k);
          div_int(t, k + 1);
        } else {
          set_zero(t, dirs_);
          if (k == 0) add_const(t, out_value_[static_cast<std::size_t>(q)]);
        }
      }
    }
  }

  /// The field at x0 (its values and gradients; the state's higher coefficients are 0) as a series
  /// in β about `beta`: coefficient k of F(x0, β + s) in s, k ≤ order, β recorded as an input
  /// rather than folded. With `beta` an interval, each coefficient encloses F's k-th β-derivative
  /// over k! for every β in it; with S = Jet<I>, its gradient by the start coordinates too.
  void compute_in_beta(const std::vector<S>& x0, const I& beta, int order) {
    const int Ns = f_->state_size(), N = f_->n() * f_->d();
    record(x0, &beta);
    resize(order, stored_);
    S zero;
    set_zero(zero, dirs_);
    for (int k = 0; k <= order; ++k)
      for (int q = 0; q < Ns; ++q)
        x_[static_cast<std::size_t>(k) * Ns + q] = k == 0 ? x0[static_cast<std::size_t>(q)] : zero;
    beta_.assign(static_cast<std::size_t>(order) + 1, zero);
    add_const(beta_[0], beta);
    if (order >= 1) add_const(beta_[1], I(1));
    field_.assign(static_cast<std::size_t>(order + 1) * N, zero);
    for (int k = 0; k <= order; ++k) {
      sweep(k);
      for (int q = 0; q < N; ++q) {
        const int node = out_[static_cast<std::size_t>(q)];
        S& t = field_[static_cast<std::size_t>(k) * N + q];
        if (node >= 0)
          t = at(node, k);
        else if (k == 0)
          add_const(t, out_value_[static_cast<std::size_t>(q)]);
      }
    }
  }
  /// Coefficient k of token coordinate q's field after compute_in_beta.
  const S& field_in_beta(int k, int q) const {
    return field_[static_cast<std::size_t>(k) * f_->n() * f_->d() + static_cast<std::size_t>(q)];
  }

  const S& coeff(int k, int q) const { return x_[static_cast<std::size_t>(k) * f_->state_size() + q]; }
  std::size_t size() const { return static_cast<std::size_t>(f_->state_size()); }
  /// The recorded graph's size.
  std::size_t nodes() const { return tape_.size(); }
  /// The nodes whose coefficients are kept (per order): the others are terms of a sum, computed
  /// inside it (fuse()).
  std::size_t stored_nodes() const { return stored_; }

 private:
  /// Records the field at x0's values: the graph of the operations the model does to the state.
  /// Recorded again at every call: the softmax's reference token and shift are chosen from the
  /// values (any choice is exact; a far one would overflow), and the graph is cheap beside the sweeps.
  /// With `beta`, β is an input node too (read from beta_ by the sweep) instead of a constant.
  void record(const std::vector<S>& x0, const I* beta = nullptr) {
    const int Ns = f_->state_size(), N = f_->n() * f_->d();
    tape_.reset(0);
    const taylor::RecordingScope<I> scope(tape_);
    State<V> x(static_cast<std::size_t>(N)), dx;
    input_.assign(static_cast<std::size_t>(Ns), -1);
    for (int q = 0; q < N; ++q) {
      x[static_cast<std::size_t>(q)] = V::input(value(x0[static_cast<std::size_t>(q)]));
      input_[static_cast<std::size_t>(q)] = x[static_cast<std::size_t>(q)].node;
    }
    int beta_node = -1;
    if (beta) {
      Model<V> model = f_->model();
      model.beta = V::input(*beta);
      beta_node = model.beta.node;
      model.rhs(x, dx, V(I(0)));
    } else {
      f_->model().rhs(x, dx, V(I(0)));
    }
    if (tape_.branched())
      throw NotAnalyticError("the field of " + f_->instance().model +
                             " is not analytic along a step: its definition takes " + tape_.why() +
                             " of the state (relu at its kink), which a Taylor enclosure cannot follow");
    out_.assign(static_cast<std::size_t>(N), -1);
    out_value_.assign(static_cast<std::size_t>(N), I(0));
    for (int q = 0; q < N; ++q) {
      out_[static_cast<std::size_t>(q)] = dx[static_cast<std::size_t>(q)].node;
      out_value_[static_cast<std::size_t>(q)] = dx[static_cast<std::size_t>(q)].v;
    }
    for (std::size_t id = 0; id < tape_.size(); ++id) {
      const taylor::Op op = tape_.node(static_cast<int>(id)).op;
      if (op == taylor::Op::Log || op == taylor::Op::Given)
        throw NotAnalyticError(std::string("the field of ") + f_->instance().model + " uses " +
                               (op == taylor::Op::Log ? "log" : "a function of time given as a series") +
                               ", which the rigorous series does not enclose");
    }
    // Inputs are numbered in recording order; the sweep reads them by node.
    slot_.assign(tape_.size(), -1);
    for (int q = 0; q < Ns; ++q)
      if (input_[static_cast<std::size_t>(q)] >= 0)
        slot_[static_cast<std::size_t>(input_[static_cast<std::size_t>(q)])] = q;
    if (beta_node >= 0) slot_[static_cast<std::size_t>(beta_node)] = Ns;
    fuse();
  }

  /// One term of a sum (an Add, Sub or Neg node with the single-use sums, products and scalings
  /// below it): ± a node's coefficient, ± a product's Cauchy sum, or ± a node times a constant.
  struct Term {
    enum class Kind : std::uint8_t { Node, Product, Scaled } kind;
    bool minus;
    int a, b;  // Product: a·b; Node and Scaled: a; Scaled: b is the constant's index
  };

  /// Sums are computed whole: a product, scaling or sum whose only reader is a sum is a term of
  /// it, computed where the sum is and never stored. A dot product ⟨x_i, x_j⟩ is then one node,
  /// not d products and d − 1 partial sums each with its own coefficient arrays (with Jacobian
  /// jets, each an array of every direction: bench key prove32x8_seconds and the prove32x8 rows of
  /// docs/performance.md). A term is read at the sum's order only, so computing it there is the
  /// same recurrence. The terms are added in the recorded order.
  void fuse() {
    using taylor::Op;
    const int count = static_cast<int>(tape_.size());
    std::vector<int> uses(static_cast<std::size_t>(count), 0), reader(static_cast<std::size_t>(count), -1);
    for (int id = 0; id < count; ++id) {
      const taylor::Node& n = tape_.node(id);
      for (const int operand : {n.a, n.b})
        if (operand >= 0) ++uses[static_cast<std::size_t>(operand)], reader[static_cast<std::size_t>(operand)] = id;
    }
    for (const int node : out_)
      if (node >= 0) uses[static_cast<std::size_t>(node)] += 2;  // read by compute(): never a term
    auto is_sum = [&](int id) {
      const Op op = tape_.node(id).op;
      return op == Op::Add || op == Op::Sub || op == Op::Neg;
    };
    fused_.assign(static_cast<std::size_t>(count), 0);
    for (int id = 0; id < count; ++id) {
      const Op op = tape_.node(id).op;
      const bool term_kind = is_sum(id) || op == Op::Mul || op == Op::Scale;
      const int r = reader[static_cast<std::size_t>(id)];
      fused_[static_cast<std::size_t>(id)] = term_kind && uses[static_cast<std::size_t>(id)] == 1 && is_sum(r);
    }
    terms_.clear();
    first_term_.assign(static_cast<std::size_t>(count) + 1, 0);
    slot_of_.assign(static_cast<std::size_t>(count), -1);
    stored_ = 0;
    for (int id = 0; id < count; ++id) {
      first_term_[static_cast<std::size_t>(id)] = static_cast<int>(terms_.size());
      if (fused_[static_cast<std::size_t>(id)]) continue;
      slot_of_[static_cast<std::size_t>(id)] = static_cast<int>(stored_++);
      if (is_sum(id)) add_terms(id, false, true);
    }
    first_term_[static_cast<std::size_t>(count)] = static_cast<int>(terms_.size());
  }

  /// Appends node id's terms with sign `minus`: its operands' if it is a sum (the root, or one
  /// fused into it), else itself as one term.
  void add_terms(int id, bool minus, bool root) {
    using taylor::Op;
    const taylor::Node& n = tape_.node(id);
    if (root || fused_[static_cast<std::size_t>(id)]) {
      switch (n.op) {
        case Op::Add:
          add_terms(n.a, minus, false);
          add_terms(n.b, minus, false);
          return;
        case Op::Sub:
          add_terms(n.a, minus, false);
          add_terms(n.b, !minus, false);
          return;
        case Op::Neg: add_terms(n.a, !minus, false); return;
        case Op::Mul: terms_.push_back({Term::Kind::Product, minus, n.a, n.b}); return;
        case Op::Scale: terms_.push_back({Term::Kind::Scaled, minus, n.a, n.c}); return;
        default: break;
      }
    }
    terms_.push_back({Term::Kind::Node, minus, id, -1});
  }

  /// Order k of sum node id: its terms added in order.
  void sum_terms(int id, int k, S& r) {
    const int first = first_term_[static_cast<std::size_t>(id)], last = first_term_[static_cast<std::size_t>(id) + 1];
    bool started = false;
    for (int t = first; t < last; ++t) {
      const Term& term = terms_[static_cast<std::size_t>(t)];
      if (term.kind == Term::Kind::Node && !term.minus && !started) {
        r = at(term.a, k);
        started = true;
        continue;
      }
      if (!started) {
        set_zero(r, dirs_);
        started = true;
      }
      switch (term.kind) {
        case Term::Kind::Node:
          if (term.minus)
            sub_into(r, r, at(term.a, k));
          else
            add_to(r, at(term.a, k));
          break;
        case Term::Kind::Product:
          if (term.minus)
            sub_cauchy(r, series(term.a), series(term.b), 0, k, k);
          else
            add_cauchy(r, series(term.a), series(term.b), 0, k, k);
          break;
        case Term::Kind::Scaled:
          tmp_ = at(term.a, k);
          scale(tmp_, tape_.constant_value(term.b));
          if (term.minus)
            sub_into(r, r, tmp_);
          else
            add_to(r, tmp_);
          break;
      }
    }
    if (!started) set_zero(r, dirs_);
  }

  /// Node-major: a node's coefficients 0..order are contiguous, as its Cauchy sums read them.
  S& at(int node, int k) {
    return c_[static_cast<std::size_t>(slot_of_[static_cast<std::size_t>(node)]) * stride_ + static_cast<std::size_t>(k)];
  }
  const S* series(int node) { return &at(node, 0); }
  const I& constant(const taylor::Node& n) const { return tape_.constant_value(n.c); }

  /// Order k of every node, from orders below k and the state's order k.
  void sweep(int k) {
    using taylor::Op;
    const int Ns = f_->state_size();
    for (int id = 0; id < static_cast<int>(tape_.size()); ++id) {
      if (fused_[static_cast<std::size_t>(id)]) continue;
      const taylor::Node& n = tape_.node(id);
      S& r = at(id, k);
      switch (n.op) {
        case Op::Input: {
          const int slot = slot_[static_cast<std::size_t>(id)];
          r = slot == Ns ? beta_[static_cast<std::size_t>(k)] : x_[static_cast<std::size_t>(k) * Ns + slot];
          break;
        }
        case Op::Add:
        case Op::Sub:
        case Op::Neg: sum_terms(id, k, r); break;
        case Op::AddConst:
          r = at(n.a, k);
          if (k == 0) add_const(r, constant(n));
          break;
        case Op::ConstSub:
          r = at(n.a, k);
          scale(r, I(-1));
          if (k == 0) add_const(r, constant(n));
          break;
        case Op::Scale:
          r = at(n.a, k);
          scale(r, constant(n));
          break;
        case Op::DivConst:
          r = at(n.a, k);
          div_const(r, constant(n));
          break;
        case Op::ConstDiv:  // q = c/b: q_k = −Σ_{m=1..k} b_m q_{k−m} / b_0
          if (k == 0) {
            const_div_into(r, constant(n), at(n.b, 0));
          } else {
            set_zero(acc_, dirs_);
            add_cauchy(acc_, series(n.b), series(id), 1, k, k);
            div_into(r, acc_, at(n.b, 0));
            scale(r, I(-1));
          }
          break;
        case Op::Mul:
          set_zero(r, dirs_);
          add_cauchy(r, series(n.a), series(n.b), 0, k, k);
          break;
        case Op::Div:  // q_k = (a_k − Σ_{m=1..k} b_m q_{k−m}) / b_0
          acc_ = at(n.a, k);
          sub_cauchy(acc_, series(n.b), series(id), 1, k, k);
          div_into(r, acc_, at(n.b, 0));
          break;
        case Op::Exp:  // e' = a' e: e_k = (1/k) Σ_{m=1..k} m a_m e_{k−m}
          if (k == 0) {
            exp_into(r, at(n.a, 0));
          } else {
            set_zero(r, dirs_);
            add_weighted_cauchy<I>(r, tmp_, series(n.a), series(id), k);
            div_int(r, k);
          }
          break;
        case Op::Sqrt:  // s² = a: s_k = (a_k − Σ_{m=1..k−1} s_m s_{k−m}) / (2 s_0)
          if (k == 0) {
            sqrt_into(r, at(n.a, 0));
          } else {
            acc_ = at(n.a, k);
            sub_cauchy(acc_, series(id), series(id), 1, k - 1, k);
            div_into(r, acc_, at(id, 0));
            div_int(r, 2);
          }
          break;
        case Op::Tanh: {  // y' = w a', w = 1 − y² (the Aux node after this one)
          S& w = at(id + 1, k);
          if (k == 0) {
            tanh_into(r, at(n.a, 0));
            set_zero(w, dirs_);
            sub_mul(w, r, r);
            add_const(w, I(1));
          } else {
            set_zero(r, dirs_);
            add_weighted_cauchy<I>(r, tmp_, series(n.a), series(id + 1), k);
            div_int(r, k);
            set_zero(w, dirs_);
            sub_cauchy(w, series(id), series(id), 0, k, k);
          }
          break;
        }
        case Op::Aux: break;  // filled by its Tanh
        case Op::Log:
        case Op::Given: throw std::logic_error("ModelSeries: refused at recording");
      }
    }
  }

  void resize(int order, std::size_t nodes) {
    const std::size_t Ns = static_cast<std::size_t>(f_->state_size());
    const std::size_t K = static_cast<std::size_t>(order) + 1;
    S z;
    set_zero(z, dirs_);
    if (x_.size() < K * Ns) x_.assign(K * Ns, z);
    stride_ = K;
    if (c_.size() < K * nodes) c_.assign(K * nodes, z);
    acc_ = z;
    tmp_ = z;
  }

  std::shared_ptr<const ModelField<I>> f_;
  int dirs_;
  taylor::Tape<I> tape_;
  std::vector<int> input_;  // state coordinate q → its input node
  std::vector<int> slot_;   // node → state coordinate (inputs), else −1
  std::vector<int> out_;    // token coordinate q → the node of its derivative (−1: a constant)
  std::vector<I> out_value_;
  std::vector<S> x_;  // the solution's coefficients, order-major
  std::vector<S> c_;  // the stored nodes' coefficients, node-major: slot · stride_ + order
  std::size_t stride_ = 0;
  std::vector<char> fused_;      // node → a term of a sum, not stored (fuse())
  std::vector<int> slot_of_;     // node → its slot in c_ (−1: fused)
  std::size_t stored_ = 0;       // slots in use
  std::vector<Term> terms_;      // every sum's terms, sum by sum
  std::vector<int> first_term_;  // node → its first term in terms_ (sums; node + 1 ends them)
  std::vector<S> beta_;   // compute_in_beta: β's coefficients (β, 1, 0, …)
  std::vector<S> field_;  // compute_in_beta: the field's coefficients in β, order-major
  S acc_, tmp_;
};

}  // namespace attnflow::verify
