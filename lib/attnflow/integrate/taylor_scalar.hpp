#pragma once
// A scalar that records what a function does to it, so that its Taylor coefficients in the
// inputs' direction can be computed afterwards by automatic-differentiation recurrences (over
// intervals the same recording gives the rigorous twin, verify/model_series.hpp). Model<T>::rhs, written once
// as a template, is evaluated on taylor::Var<T> once per step: each operation on a non-constant
// appends a node to the thread's current Tape; constants (weights, β) fold at once, so Q = I
// costs nothing. Tape::sweep(k) then computes every node's k-th coefficient from the lower ones
// (O(k) per product, quotient, exp, sqrt, tanh, log), which is all a Taylor integrator needs.
//
// A branch is what a series cannot follow: an order comparison (<, >, ≤, ≥), abs or floor
// involving a non-constant marks the tape `branched` (ReLU, interpolated weights, a scaling
// loop), and the integrator refuses the field. == and != compare identity (the same node, or
// two constants of equal value), never values that agree only at the expansion point.
#include "attnflow/integrate/cauchy_sum.hpp"
#include "attnflow/model/attention.hpp"  // AttentionForm
#include "attnflow/model/inplace_ops.hpp"
#include "attnflow/scalar.hpp"

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace attnflow::taylor {

enum class Op : std::uint8_t {
  Input, Given, Add, Sub, Neg, AddConst, ConstSub, Scale, DivConst, ConstDiv, Mul, Div, Exp, Sqrt, Tanh, Log, Aux
};

struct Node {
  Op op;
  int a = -1, b = -1;  // operand nodes
  int c = -1;          // constant index (AddConst, ConstSub, Scale, DivConst, ConstDiv)
};

/// The recorded operations and, after sweep(k), their coefficients 0..k. Coefficient 0 of each
/// node is its value, set while recording.
template <class T> class Tape {
 public:
  /// Starts a new recording whose nodes hold coefficients 0..order (storage is kept between
  /// recordings: a step of an integrator records the same graph again).
  void reset(int order) {
    if (order + 1 != stride_) {
      coef_.clear();
      stride_ = order + 1;
    }
    nodes_.clear();
    constants_count_ = 0;
    time_node_ = -1;
    branched_ = false;
    why_.clear();
  }
  int order() const { return stride_ - 1; }
  std::size_t size() const { return nodes_.size(); }
  bool branched() const { return branched_; }
  const std::string& why() const { return why_; }
  void mark_branched(const char* what) {
    if (!branched_) why_ = what;
    branched_ = true;
  }

  int push(Op op, int a, int b, int c, const T& value) {
    const int id = static_cast<int>(nodes_.size());
    nodes_.push_back(Node{op, a, b, c});
    const std::size_t need = (static_cast<std::size_t>(id) + 1) * static_cast<std::size_t>(stride_);
    if (coef_.size() < need) coef_.resize(need, value);  // new storage, at the working precision
    inplace::set(at(id, 0), value);
    return id;
  }
  /// A node whose coefficients 0..order are known when it is recorded (a function of time alone).
  int given(const std::vector<T>& coefficients) {
    const int id = push(Op::Given, -1, -1, -1, coefficients.at(0));
    for (int k = 1; k <= order(); ++k) inplace::set(at(id, k), coefficients.at(static_cast<std::size_t>(k)));
    return id;
  }
  /// The input node that stands for time (−1: none), for operations that expand in t directly.
  int time_node() const { return time_node_; }
  void set_time_node(int node) { time_node_ = node; }
  const Node& node(int id) const { return nodes_[static_cast<std::size_t>(id)]; }
  const T& constant_value(int c) const { return constants_[static_cast<std::size_t>(c)]; }
  const T& coefficient0(int id) const { return at(id, 0); }

  int constant(const T& c) {
    if (constants_count_ == constants_.size()) constants_.push_back(c);
    else inplace::set(constants_[constants_count_], c);
    return static_cast<int>(constants_count_++);
  }

  T& at(int node, int k) { return coef_[static_cast<std::size_t>(node) * stride_ + static_cast<std::size_t>(k)]; }
  const T& at(int node, int k) const {
    return coef_[static_cast<std::size_t>(node) * stride_ + static_cast<std::size_t>(k)];
  }

  /// Coefficient k ≥ 1 of every node that is not an input, from coefficients below k (and the
  /// inputs' coefficient k, which the caller has set).
  void sweep(int k) {
    if (k < 1 || k > order()) throw std::logic_error("Tape::sweep: order out of range");
    T& tmp = scratch_[0];
    T& acc = scratch_[1];
    tmp = T(0), acc = T(0);  // at the working precision
    for (int id = 0; id < static_cast<int>(nodes_.size()); ++id) {
      const Node& n = nodes_[static_cast<std::size_t>(id)];
      T& r = at(id, k);
      switch (n.op) {
        case Op::Input:
        case Op::Given:
        case Op::Aux: break;
        case Op::Add: inplace::add(r, at(n.a, k), at(n.b, k)); break;
        case Op::Sub: inplace::sub(r, at(n.a, k), at(n.b, k)); break;
        case Op::Neg: inplace::set_zero(acc), inplace::sub(r, acc, at(n.a, k)); break;
        case Op::AddConst: inplace::set(r, at(n.a, k)); break;
        case Op::ConstSub: inplace::set_zero(acc), inplace::sub(r, acc, at(n.a, k)); break;
        case Op::Scale: inplace::mul(r, at(n.a, k), constants_[static_cast<std::size_t>(n.c)]); break;
        case Op::DivConst: inplace::div(r, at(n.a, k), constants_[static_cast<std::size_t>(n.c)]); break;
        case Op::ConstDiv:  // q = c/b: q_k = −Σ_{m=1..k} b_m q_{k−m} / b_0
          sum_(acc, &at(n.b, 0), &at(id, 0), 1, k, k, false);
          inplace::div(acc, acc, at(n.b, 0));
          inplace::set_zero(tmp), inplace::sub(r, tmp, acc);
          break;
        case Op::Mul: sum_(r, &at(n.a, 0), &at(n.b, 0), 0, k, k, false); break;
        case Op::Div:  // q = a/b: q_k = (a_k − Σ_{m=1..k} b_m q_{k−m}) / b_0
          sum_(acc, &at(n.b, 0), &at(id, 0), 1, k, k, false);
          inplace::sub(acc, at(n.a, k), acc);
          inplace::div(r, acc, at(n.b, 0));
          break;
        case Op::Exp:  // e' = a' e: e_k = (1/k) Σ_{m=1..k} m a_m e_{k−m}
          sum_(acc, &at(n.a, 0), &at(id, 0), 1, k, k, true);
          inplace::div_ui(r, acc, static_cast<unsigned long>(k));
          break;
        case Op::Sqrt:  // s² = a: s_k = (a_k − Σ_{m=1..k−1} s_m s_{k−m}) / (2 s_0)
          sum_(acc, &at(id, 0), &at(id, 0), 1, k - 1, k, false);
          inplace::sub(acc, at(n.a, k), acc);
          inplace::div(r, acc, at(id, 0));
          inplace::div_ui(r, r, 2);
          break;
        case Op::Log:  // a l' = a': l_k = (a_k − (1/k) Σ_{m=1..k−1} m l_m a_{k−m}) / a_0
          sum_(acc, &at(id, 0), &at(n.a, 0), 1, k - 1, k, true);
          inplace::div_ui(acc, acc, static_cast<unsigned long>(k));
          inplace::sub(acc, at(n.a, k), acc);
          inplace::div(r, acc, at(n.a, 0));
          break;
        case Op::Tanh: {  // y' = w a', w = 1 − y² (the Aux node after this one)
          const int w = id + 1;
          sum_(acc, &at(n.a, 0), &at(w, 0), 1, k, k, true);
          inplace::div_ui(r, acc, static_cast<unsigned long>(k));
          sum_(acc, &at(id, 0), &at(id, 0), 0, k, k, false);  // w_k = −Σ_{m=0..k} y_m y_{k−m}
          inplace::set_zero(tmp), inplace::sub(at(w, k), tmp, acc);
          break;
        }
      }
    }
  }

 private:
  std::vector<Node> nodes_;
  std::vector<T> coef_;
  std::vector<T> constants_;
  std::size_t constants_count_ = 0;
  T scratch_[2];
  CauchySum<T> sum_;
  int stride_ = 0;
  int time_node_ = -1;
  bool branched_ = false;
  std::string why_;
};

/// The tape the current thread records on (set by a RecordingScope).
template <class T> Tape<T>*& current_tape() {
  thread_local Tape<T>* tape = nullptr;
  return tape;
}

template <class T> class RecordingScope {
 public:
  explicit RecordingScope(Tape<T>& t) : saved_(current_tape<T>()) { current_tape<T>() = &t; }
  ~RecordingScope() { current_tape<T>() = saved_; }
  RecordingScope(const RecordingScope&) = delete;
  RecordingScope& operator=(const RecordingScope&) = delete;

 private:
  Tape<T>* saved_;
};

/// Whether a constant is exactly 0 or 1, so that an operation with it folds away. Interval
/// scalars (the rigorous twin, verify/model_series.hpp) specialise this: an interval equals a
/// number only when it is that number alone.
template <class T> struct ConstantTest {
  static bool is(const T& c, int value) { return c == T(value); }
  /// The same number (for an interval: the same ends).
  static bool same(const T& a, const T& b) { return a == b; }
};

/// A value's floor and its conversion to a built-in number (a layer index from a time): interval
/// scalars specialise this too.
template <class T> struct ValueOps {
  static T floor(const T& x) {
    using std::floor;
    return floor(x);
  }
  template <class U> static U convert(const T& x) { return static_cast<U>(x); }
};

template <class T> class Var {
 public:
  T v = T(0);    // the value (coefficient 0)
  int node = -1;  // −1: a constant

  Var() = default;
  Var(const T& value) : v(value) {}  // NOLINT: implicit, a constant
  template <class U, std::enable_if_t<std::is_arithmetic_v<U> && !std::is_same_v<U, T>, int> = 0> Var(U value)
      : v(value) {}  // NOLINT: implicit, a constant
  explicit Var(const std::string& s) : v(from_decimal<T>(s)) {}

  static Var input(const T& value) { return make(Op::Input, -1, -1, -1, value); }
  /// The series Σ_k c_k s^k, its coefficients known (Tape::given).
  static Var given(const std::vector<T>& coefficients) {
    Var r(coefficients.at(0));
    r.node = tape().given(coefficients);
    return r;
  }
  static Tape<T>& tape() {
    Tape<T>* t = current_tape<T>();
    if (!t) throw std::logic_error("taylor::Var: an operation on a non-constant outside a RecordingScope");
    return *t;
  }
  bool constant() const { return node < 0; }

  template <class U, std::enable_if_t<std::is_arithmetic_v<U>, int> = 0> explicit operator U() const {
    return ValueOps<T>::template convert<U>(v);
  }

  Var& operator+=(const Var& o) { return *this = *this + o; }
  Var& operator-=(const Var& o) { return *this = *this - o; }
  Var& operator*=(const Var& o) { return *this = *this * o; }
  Var& operator/=(const Var& o) { return *this = *this / o; }
  Var operator+() const { return *this; }
  Var operator-() const { return constant() ? Var(T(-v)) : make(Op::Neg, node, -1, -1, T(-v)); }

  friend Var operator+(const Var& a, const Var& b) {
    if (a.constant() && b.constant()) return Var(T(a.v + b.v));
    if (a.constant()) return b + a;
    if (b.constant()) return ConstantTest<T>::is(b.v, 0) ? a : make(Op::AddConst, a.node, -1, constant_of(b.v), T(a.v + b.v));
    return make(Op::Add, a.node, b.node, -1, T(a.v + b.v));
  }
  friend Var operator-(const Var& a, const Var& b) {
    if (a.constant() && b.constant()) return Var(T(a.v - b.v));
    if (b.constant()) return ConstantTest<T>::is(b.v, 0) ? a : make(Op::AddConst, a.node, -1, constant_of(T(-b.v)), T(a.v - b.v));
    if (a.constant()) return make(Op::ConstSub, b.node, -1, constant_of(a.v), T(a.v - b.v));
    return make(Op::Sub, a.node, b.node, -1, T(a.v - b.v));
  }
  friend Var operator*(const Var& a, const Var& b) {
    if (a.constant() && b.constant()) return Var(T(a.v * b.v));
    if (a.constant()) return b * a;
    if (b.constant()) {
      if (ConstantTest<T>::is(b.v, 0)) return Var(T(0));
      if (ConstantTest<T>::is(b.v, 1)) return a;
      return make(Op::Scale, a.node, -1, constant_of(b.v), T(a.v * b.v));
    }
    return make(Op::Mul, a.node, b.node, -1, T(a.v * b.v));
  }
  friend Var operator/(const Var& a, const Var& b) {
    if (a.constant() && b.constant()) return Var(T(a.v / b.v));
    if (b.constant()) return ConstantTest<T>::is(b.v, 1) ? a : make(Op::DivConst, a.node, -1, constant_of(b.v), T(a.v / b.v));
    if (a.constant()) {
      if (ConstantTest<T>::is(a.v, 0)) return Var(T(0));
      return make(Op::ConstDiv, -1, b.node, constant_of(a.v), T(a.v / b.v));
    }
    return make(Op::Div, a.node, b.node, -1, T(a.v / b.v));
  }

  friend bool operator<(const Var& a, const Var& b) { return ordered(a, b), a.v < b.v; }
  friend bool operator>(const Var& a, const Var& b) { return ordered(a, b), a.v > b.v; }
  friend bool operator<=(const Var& a, const Var& b) { return ordered(a, b), a.v <= b.v; }
  friend bool operator>=(const Var& a, const Var& b) { return ordered(a, b), a.v >= b.v; }
  /// Identity, not value: two series that agree at the expansion point may differ after it.
  friend bool operator==(const Var& a, const Var& b) {
    if (a.constant() && b.constant()) return a.v == b.v;
    return a.node == b.node;
  }
  friend bool operator!=(const Var& a, const Var& b) { return !(a == b); }

  friend Var exp(const Var& a) {
    using std::exp;
    return a.constant() ? Var(T(exp(a.v))) : make(Op::Exp, a.node, -1, -1, T(exp(a.v)));
  }
  friend Var sqrt(const Var& a) {
    using std::sqrt;
    return a.constant() ? Var(T(sqrt(a.v))) : make(Op::Sqrt, a.node, -1, -1, T(sqrt(a.v)));
  }
  friend Var log(const Var& a) {
    using std::log;
    return a.constant() ? Var(T(log(a.v))) : make(Op::Log, a.node, -1, -1, T(log(a.v)));
  }
  friend Var tanh(const Var& a) {
    using std::tanh;
    const T y = tanh(a.v);
    if (a.constant()) return Var(y);
    Var r = make(Op::Tanh, a.node, -1, -1, y);
    make(Op::Aux, -1, -1, -1, T(T(1) - y * y));  // w = 1 − y², node r.node + 1
    return r;
  }
  friend Var abs(const Var& a) {
    if (!a.constant()) tape().mark_branched("abs");
    return a.v < T(0) ? -a : a;
  }
  friend Var floor(const Var& a) {
    if (!a.constant()) tape().mark_branched("floor");
    return Var(ValueOps<T>::floor(a.v));
  }
  friend bool isfinite(const Var& a) { return is_finite(a.v); }
  friend std::ostream& operator<<(std::ostream& os, const Var& a) { return os << a.v; }

 private:
  static Var make(Op op, int a, int b, int c, const T& value) {
    Var r(value);
    r.node = tape().push(op, a, b, c, value);
    return r;
  }
  static int constant_of(const T& c) { return tape().constant(c); }
  static void ordered(const Var& a, const Var& b) {
    if (!a.constant() || !b.constant()) tape().mark_branched("an order comparison");
  }
};

}  // namespace attnflow::taylor

namespace attnflow {
/// Ordered by value (comparisons of non-constants mark the tape); a point is a constant, so a
/// softmax shift by it adds nothing to the tape and is exact for the series as for the value.
template <class T> struct ScalarOrder<taylor::Var<T>> {
  static constexpr bool total = true;
  static taylor::Var<T> point(const taylor::Var<T>& x) { return taylor::Var<T>(T(ScalarOrder<T>::point(x.v))); }
  /// As the value's own kind decides it (an interval: its lower end), never by a comparison that
  /// an interval containing 0 could not answer.
  static bool certainly_positive(const taylor::Var<T>& x) { return ScalarOrder<T>::certainly_positive(x.v); }
};
}  // namespace attnflow

namespace attnflow {
/// Attention in recorded_attention.hpp's form (fewer recorded operations); two values are the
/// same when both are one constant or one node.
template <class T> struct AttentionForm<taylor::Var<T>> {
  static constexpr bool recorded = true;
  static bool identical(const taylor::Var<T>& a, const taylor::Var<T>& b) {
    if (a.constant() != b.constant()) return false;
    return a.constant() ? taylor::ConstantTest<T>::same(a.v, b.v) : a.node == b.node;
  }
};
}  // namespace attnflow

namespace std {
template <class T> class numeric_limits<attnflow::taylor::Var<T>> : public numeric_limits<T> {
 public:
  static attnflow::taylor::Var<T> epsilon() { return attnflow::taylor::Var<T>(attnflow::epsilon<T>()); }
  static attnflow::taylor::Var<T> min() { return attnflow::taylor::Var<T>(numeric_limits<T>::min()); }
  static attnflow::taylor::Var<T> max() { return attnflow::taylor::Var<T>(numeric_limits<T>::max()); }
  static attnflow::taylor::Var<T> lowest() { return attnflow::taylor::Var<T>(numeric_limits<T>::lowest()); }
};
}  // namespace std

namespace Eigen {
template <class T> struct NumTraits<attnflow::taylor::Var<T>> : GenericNumTraits<attnflow::taylor::Var<T>> {
  using Real = attnflow::taylor::Var<T>;
  using NonInteger = attnflow::taylor::Var<T>;
  using Nested = attnflow::taylor::Var<T>;
  using Literal = attnflow::taylor::Var<T>;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 1,
    ReadCost = 2 * NumTraits<T>::ReadCost,
    AddCost = 2 * NumTraits<T>::AddCost,
    MulCost = 2 * NumTraits<T>::MulCost
  };
  static Real epsilon() { return Real(NumTraits<T>::epsilon()); }
  static Real dummy_precision() { return Real(NumTraits<T>::dummy_precision()); }
  static Real highest() { return Real(NumTraits<T>::highest()); }
  static Real lowest() { return Real(NumTraits<T>::lowest()); }
  static int digits10() { return NumTraits<T>::digits10(); }
};
}  // namespace Eigen

// e^{tV} on Var is an explicit specialisation of matrix_exponential: every unit that sees Var must
// see it before instantiating a model's field, or the generic scaling loop (which branches) would
// be instantiated under the same name.
#include "attnflow/integrate/taylor_matrix_exponential.hpp"  // IWYU pragma: export
