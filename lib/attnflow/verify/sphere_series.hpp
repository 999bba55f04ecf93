#pragma once
// The Taylor coefficients the rigorous integrator takes, in interval arithmetic (the kv / CAPD
// way), optionally with the gradient with respect to the start carried along (jets, for the
// Jacobian of the flow). Every flow but sa-euclid gets them from Model<T> itself, recorded over
// intervals (model_series.hpp): there is one definition of each field. sa-euclid keeps the
// automatic-differentiation recurrences below, in co-moving coordinates, which the recorded model
// (in plain coordinates) does not have: through it the same enclosures take 27 to 61 times the
// steps (docs/performance.md, "The rigorous twin against the hand recurrences").
//   L_ij = x_i^T A x_j,  A = β Q^T K          (Cauchy products)
//   E_ij = exp(L_ij)                          E[k] = (1/k) Σ_{m=1}^k m L[m] E[k−m]
//   S_i  = Σ_j E_ij x_j,  Z_i = Σ_j E_ij
//   y_i  = S_i / Z_i                          y[k] = (S[k] − Σ_{m≥1} Z[m] y[k−m]) / Z[0]
//   ẋ_i  = V y_i                              ([A] eq. (1): tokens in R^d)
// The flow is integrated in co-moving coordinates, the rescaled tokens of [A]:
//   x_i = M z_i, M = e^{tV}:   ż_i = V (Σ_j P_ij z_j − z_i),  Ṁ = V M  (M(0) = I; V = v·I: M = m·I)
// The state is (z, M): n·d + d² numbers (n·d + 1 for scalar V). Why: the tokens grow like e^{vt}
// and those captured by one leader move together, so a box of x forgets that x_j − x_r is small
// and gives the logits ⟨x_i, A(x_j − x_r)⟩ widths of order h·e^{2vt}; z barely moves once the
// clusters form (ż → 0), so boxes of z keep the differences, and with them the logits, narrow.
// The logits use x = M z (a Cauchy product): L_ij = ⟨M z_i, A M z_j⟩, the model's own; the
// shifted ones as ⟨M z_i, A M (z_j − z_r)⟩: M z_j − M z_r would put the width of M over a step
// (relative h, times e^{vt}) on a difference that is small.
// sa-euclid's logits grow like e^{2vt}: exp(L) overflows and Z, S would cancel catastrophically.
// There each row is taken relative to a reference column r(i), the row's largest logit at the
// series' start: E_ij = exp(L_ij − L_ir) with L_ij − L_ir = ⟨x_i, A(x_j − x_r)⟩ computed as one
// product (no cancellation), E_ir ≡ 1. y = S/Z is unchanged (both rows scale by e^{−L_ir}).
// Internal to lib/attnflow/verify/*.cpp (it includes interval.hpp).
#include "attnflow/verify/interval.hpp"
#include "attnflow/verify/midrad_jet.hpp"

#include <limits>
#include <memory>
#include <vector>

namespace attnflow::verify {

template <class I> class ModelField;
template <class I, class S> class ModelSeries;

/// A value with its gradient with respect to the N start coordinates.
template <class I> struct Jet {
  I v;
  std::vector<I> g;
};

// ---- the operations the recurrences use, for S = I and S = Jet<I> -----------------------
template <class I> inline void set_zero(I& a, int) { a = I(0); }
template <class I> inline void add_mul(I& acc, const I& a, const I& b) { acc += iv::mul(a, b); }
template <class I> inline void sub_mul(I& acc, const I& a, const I& b) { acc -= iv::mul(a, b); }
template <class I> inline void add_to(I& acc, const I& a) { acc += a; }
template <class I> inline void scale(I& a, const I& c) { a = iv::mul(a, c); }
template <class I> inline void div_int(I& a, int k) { a /= I(k); }
template <class I> inline void div_into(I& out, const I& a, const I& b) { out = a / b; }
template <class I> inline void exp_into(I& out, const I& a) { out = iv::exp(a); }
template <class I> inline const I& value(const I& a) { return a; }
template <class I> inline void sub_into(I& out, const I& a, const I& b) { out = a - b; }
inline double approx_value(double a) { return a; }
inline double approx_value(const mpfr& a) { return static_cast<double>(a); }
inline double approx_value(const DInterval& a) { return iv::mid(a); }
inline double approx_value(const MInterval& a) { return static_cast<double>(iv::mid(a)); }

template <class I> inline void set_zero(Jet<I>& a, int N) {
  a.v = I(0);
  a.g.assign(static_cast<std::size_t>(N), I(0));
}
template <class I> inline void add_mul(Jet<I>& acc, const Jet<I>& a, const Jet<I>& b) {
  acc.v += iv::mul(a.v, b.v);
  for (std::size_t l = 0; l < acc.g.size(); ++l) acc.g[l] += iv::mul(a.v, b.g[l]) + iv::mul(a.g[l], b.v);
}
template <class I> inline void sub_mul(Jet<I>& acc, const Jet<I>& a, const Jet<I>& b) {
  acc.v -= iv::mul(a.v, b.v);
  for (std::size_t l = 0; l < acc.g.size(); ++l) acc.g[l] -= iv::mul(a.v, b.g[l]) + iv::mul(a.g[l], b.v);
}
template <class I> inline void add_to(Jet<I>& acc, const Jet<I>& a) {
  acc.v += a.v;
  for (std::size_t l = 0; l < acc.g.size(); ++l) acc.g[l] += a.g[l];
}
template <class I> inline void scale(Jet<I>& a, const I& c) {
  a.v = iv::mul(a.v, c);
  for (auto& g : a.g) g = iv::mul(g, c);
}
template <class I> inline void div_int(Jet<I>& a, int k) {
  const I kk(k);
  a.v /= kk;
  for (auto& g : a.g) g /= kk;
}
template <class I> inline void div_into(Jet<I>& out, const Jet<I>& a, const Jet<I>& b) {
  out.v = a.v / b.v;
  out.g.resize(a.g.size());
  for (std::size_t l = 0; l < a.g.size(); ++l) out.g[l] = (a.g[l] - out.v * b.g[l]) / b.v;
}
template <class I> inline void exp_into(Jet<I>& out, const Jet<I>& a) {
  out.v = iv::exp(a.v);
  out.g.resize(a.g.size());
  for (std::size_t l = 0; l < a.g.size(); ++l) out.g[l] = out.v * a.g[l];
}
template <class I> inline const I& value(const Jet<I>& a) { return a.v; }
template <class I> inline void sub_into(Jet<I>& out, const Jet<I>& a, const Jet<I>& b) {
  out.v = a.v - b.v;
  out.g.resize(a.g.size());
  for (std::size_t l = 0; l < a.g.size(); ++l) out.g[l] = a.g[l] - b.g[l];
}
template <class I> inline double approx_value(const Jet<I>& a) { return approx_value(a.v); }
/// Gradient entry l as an interval, and its seeding.
template <class I> inline const I& gradient(const Jet<I>& a, std::size_t l) { return a.g[l]; }
template <class I> inline void set_gradient(Jet<I>& a, std::size_t l, const I& x) { a.g[l] = x; }

/// The jet the flow's Jacobian is computed with: midpoint–radius gradients for double intervals
/// (midrad_jet.hpp: a fraction of the time, enclosures wider in their last bits), Jet<I> otherwise.
template <class I> struct JacobianJet {
  using type = Jet<I>;
};
template <> struct JacobianJet<DInterval> {
  using type = MidRadJet;
};
template <class I> using jacobian_jet_t = typename JacobianJet<I>::type;

/// The parameters of one flow: the model recorded over intervals (every flow but sa-euclid), or
/// sa-euclid's n tokens in R^d with A = β Q^T K and V, for the co-moving recurrences below.
template <class I> struct SphereField {
  int n = 0, d = 0;
  /// Set for every flow but sa-euclid: the coefficients come from Model<T> itself
  /// (model_series.hpp), and the fields below are unused.
  std::shared_ptr<const ModelField<I>> model;
  std::vector<I> A;       // d×d row-major, β Q^T K (enclosure of the exact product)
  bool A_scalar = false;  // A = a·I: the form is a⟨x_i, x_j⟩
  I a = I(1);             // that a
  bool V_scalar = true;   // V = v·I
  I v = I(1);
  std::vector<I> V;  // !V_scalar: d×d row-major

  /// The state's extra coordinates after the n·d tokens: M (co-moving frame, sa-euclid).
  int extra() const { return model ? 0 : V_scalar ? 1 : d * d; }
  int state_size() const { return n * d + extra(); }
};

/// Coefficients x[0..order] of the solution through x0 (a box, or a box with gradients).
template <class I, class S> class SphereSeries {
 public:
  SphereSeries(const SphereField<I>& f, int dirs) : f_(f), dirs_(dirs) {
    if (f.model) general_ = std::make_shared<ModelSeries<I, S>>(f.model, dirs);
  }

  /// x0: the state, state_size() entries (token i, coordinate c at i·d + c; then M for
  /// sa-euclid). Afterwards coeff(k, ·) for k ≤ order.
  void compute(const std::vector<S>& x0, int order) {
    if (general_) return general_->compute(x0, order);
    const int n = f_.n, d = f_.d, N = n * d, nn = n * n, Ns = f_.state_size();
    resize(order);
    for (int q = 0; q < Ns; ++q) x_[q] = x0[static_cast<std::size_t>(q)];
    for (int k = 0; k < order; ++k) {
      positions(k);  // the token positions x = M z
      if (k == 0) {
        // u_j = A x_j at the start, only to choose the rows' references (top of file).
        if (!f_.A_scalar)
          for (int j = 0; j < n; ++j)
            for (int c = 0; c < d; ++c) {
              S& t = u_[static_cast<std::size_t>(j * d + c)];
              set_zero(t, dirs_);
              for (int e = 0; e < d; ++e) {
                tmp_ = pos_[static_cast<std::size_t>(j * d + e)];
                scale(tmp_, f_.A[static_cast<std::size_t>(c * d + e)]);
                add_to(t, tmp_);
              }
            }
        choose_references(pos_.data(), f_.A_scalar ? pos_.data() : u_.data());
      }
      differences(k);
      // L_ij[k] − L_ir[k] = Σ_m ⟨x_i[m], A M (z_j − z_r(i))[k−m]⟩
      S* Lk = &L_[static_cast<std::size_t>(k) * nn];
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          S& t = Lk[i * n + j];
          set_zero(t, dirs_);
          if (j == ref_[static_cast<std::size_t>(i)]) continue;  // L_ir − L_ir ≡ 0
          for (int m = 0; m <= k; ++m) {
            const S* xi = &pos_[static_cast<std::size_t>(m) * N + i * d];
            const S* uj = &adiff(row_slot(i), k - m)[j * d];
            for (int c = 0; c < d; ++c) add_mul(t, xi[c], uj[c]);
          }
          if (f_.A_scalar) scale(t, f_.a);
        }
      // E_ij[k]
      S* Ek = &E_[static_cast<std::size_t>(k) * nn];
      for (int ij = 0; ij < nn; ++ij) {
        if (k == 0) {
          exp_into(Ek[ij], Lk[ij]);
          continue;
        }
        S& t = Ek[ij];
        set_zero(t, dirs_);
        for (int m = 1; m <= k; ++m) {
          tmp_ = L_[static_cast<std::size_t>(m) * nn + ij];
          scale(tmp_, I(m));
          add_mul(t, tmp_, E_[static_cast<std::size_t>(k - m) * nn + ij]);
        }
        div_int(t, k);
      }
      // y_i[k]: in the co-moving frame y_i = Σ_j P_ij z_j (M^{-1} is linear), the state's tokens,
      // not the positions, and relative to the row's reference: y_i − z_r = Σ_j P_ij (z_j − z_r).
      // Why: a box of S = Σ E z and one of y Z do not cancel, and the width of ∂E/∂z (∝ e^{2vt})
      // would multiply |z_j| + |y_i| instead of the small |z_j − z_r| of tokens in one cluster.
      // All d coordinates at once, so that each E_ij[m] is read once (with jets of n·d directions
      // the E's do not stay in cache across d passes).
      S* yk = &y_[static_cast<std::size_t>(k) * N];
      S* Zk = &Z_[static_cast<std::size_t>(k) * n];
      for (int i = 0; i < n; ++i) {
        set_zero(Zk[i], dirs_);
        for (int j = 0; j < n; ++j) add_to(Zk[i], Ek[i * n + j]);
        for (int c = 0; c < d; ++c) set_zero(acc_[static_cast<std::size_t>(c)], dirs_);
        for (int m = 0; m <= k; ++m)
          for (int j = 0; j < n; ++j) {
            if (j == ref_[static_cast<std::size_t>(i)]) continue;  // z_r − z_r ≡ 0
            const S& e = E_[static_cast<std::size_t>(m) * nn + i * n + j];
            const S* w = &zdiff(row_slot(i), k - m)[j * d];
            for (int c = 0; c < d; ++c) add_mul(acc_[static_cast<std::size_t>(c)], e, w[c]);
          }
        for (int c = 0; c < d; ++c) {
          S& s = acc_[static_cast<std::size_t>(c)];
          for (int m = 1; m <= k; ++m)
            sub_mul(s, Z_[static_cast<std::size_t>(m) * n + i], y_[static_cast<std::size_t>(k - m) * N + i * d + c]);
          div_into(yk[i * d + c], s, Z_[static_cast<std::size_t>(i)]);
        }
      }
      // z[k+1] = V (y[k] − z[k]) / (k+1) with y − z = (y − z_r) − (z_i − z_r);  M[k+1] = V M[k] / (k+1)
      S* xn = &x_[static_cast<std::size_t>(k + 1) * Ns];
      const S* zk = &x_[static_cast<std::size_t>(k) * Ns];
      for (int i = 0; i < n; ++i) {
        const bool own = ref_[static_cast<std::size_t>(i)] == i;
        const S* w = &zdiff(row_slot(i), k)[i * d];
        for (int c = 0; c < d; ++c) {
          S& t = acc_[static_cast<std::size_t>(c)];
          if (own)
            t = yk[i * d + c];
          else
            sub_into(t, yk[i * d + c], w[c]);
        }
        for (int c = 0; c < d; ++c) apply_V(acc_.data(), 1, &xn[i * d], k + 1, c);
      }
      const int e = f_.extra();
      for (int c = 0; c < e; ++c) apply_V(&zk[N], f_.V_scalar ? 1 : d, &xn[N], k + 1, c);
    }
  }

  const S& coeff(int k, int q) const {
    if (general_) return general_->coeff(k, q);
    return x_[static_cast<std::size_t>(k) * f_.state_size() + q];
  }
  /// The number of state coordinates (n·d, plus M in the co-moving frame).
  std::size_t size() const { return static_cast<std::size_t>(f_.state_size()); }

 private:
  /// out[c] = (V w)_c / k for a column w read with stride `stride` from `w` (V = v·I: v w_c / k).
  /// Used for V (y − z) (stride 1, w the row's d values) and V M (stride d, w a column of M).
  void apply_V(const S* w, int stride, S* out, int k, int c) {
    const int d = f_.d;
    S& t = out[c];
    if (f_.V_scalar) {
      t = w[c * stride];
      scale(t, f_.v);
    } else {
      // Column c of M (stride d) is w[c + b·d]; a token's row (stride 1) is w[b].
      const int col = stride == 1 ? 0 : c % d, row = stride == 1 ? c : c / d;
      set_zero(t, dirs_);
      for (int b = 0; b < d; ++b) {
        tmp_ = w[stride == 1 ? b : b * d + col];
        scale(tmp_, f_.V[static_cast<std::size_t>(row * d + b)]);
        add_to(t, tmp_);
      }
    }
    div_int(t, k);
  }

  /// Order k of z_j − z_r for one reference slot, token j at j·d.
  S* zdiff(int slot, int k) { return &dz_[slot_offset(slot, k)]; }
  /// The shifted logits' right factors of order k for one reference slot: A M (z_j − z_r), token j
  /// at j·d (without A when A = a·I: a is applied to the logit).
  S* adiff(int slot, int k) { return &adiff_[slot_offset(slot, k)]; }
  std::size_t slot_offset(int slot, int k) const {
    const std::size_t N = static_cast<std::size_t>(f_.n) * f_.d;
    return (static_cast<std::size_t>(slot) * order_cap_ + static_cast<std::size_t>(k)) * N;
  }
  /// The reference slot of row i.
  int row_slot(int i) const { return slot_[static_cast<std::size_t>(ref_[static_cast<std::size_t>(i)])]; }

  /// Order k of the differences: dz = z_j − z_r, then Σ_m M[m] dz[k−m], then A times that.
  void differences(int k) {
    const int n = f_.n, d = f_.d, N = n * d, Ns = f_.state_size();
    for (std::size_t s = 0; s < refs_.size(); ++s) {
      const int r = refs_[s], slot = static_cast<int>(s);
      S* dz = zdiff(slot, k);
      const S* z = &x_[static_cast<std::size_t>(k) * Ns];
      for (int j = 0; j < n; ++j)
        for (int c = 0; c < d; ++c) {
          if (j == r)
            set_zero(dz[j * d + c], dirs_);
          else
            sub_into(dz[j * d + c], z[j * d + c], z[r * d + c]);
        }
      S* md = mdiff_.data();  // M (z_j − z_r) of order k: scratch, only A times it is kept
      for (int q = 0; q < N; ++q) set_zero(md[q], dirs_);
      for (int m = 0; m <= k; ++m) {
        const S* M = &x_[static_cast<std::size_t>(m) * Ns + N];
        const S* w = zdiff(slot, k - m);
        for (int j = 0; j < n; ++j) {
          if (j == r) continue;
          for (int c = 0; c < d; ++c) {
            if (f_.V_scalar)
              add_mul(md[j * d + c], M[0], w[j * d + c]);
            else
              for (int b = 0; b < d; ++b) add_mul(md[j * d + c], M[c * d + b], w[j * d + b]);
          }
        }
      }
      S* ad = adiff(slot, k);
      for (int j = 0; j < n; ++j)
        for (int c = 0; c < d; ++c) {
          S& t = ad[j * d + c];
          if (f_.A_scalar) {
            t = md[j * d + c];
            continue;
          }
          set_zero(t, dirs_);
          if (j == r) continue;
          for (int e = 0; e < d; ++e) {
            tmp_ = md[j * d + e];
            scale(tmp_, f_.A[static_cast<std::size_t>(c * d + e)]);
            add_to(t, tmp_);
          }
        }
    }
  }

  /// pos[k] = Σ_{m≤k} M[m] z[k−m], the token positions x = M z (co-moving frame).
  void positions(int k) {
    const int n = f_.n, d = f_.d, N = n * d, Ns = f_.state_size();
    S* pk = &pos_[static_cast<std::size_t>(k) * N];
    for (int q = 0; q < N; ++q) set_zero(pk[q], dirs_);
    for (int m = 0; m <= k; ++m) {
      const S* M = &x_[static_cast<std::size_t>(m) * Ns + N];
      const S* z = &x_[static_cast<std::size_t>(k - m) * Ns];
      for (int i = 0; i < n; ++i)
        for (int c = 0; c < d; ++c) {
          if (f_.V_scalar) {
            add_mul(pk[i * d + c], M[0], z[i * d + c]);
          } else {
            for (int b = 0; b < d; ++b) add_mul(pk[i * d + c], M[c * d + b], z[i * d + b]);
          }
        }
    }
  }

  void resize(int order) {
    const std::size_t N = static_cast<std::size_t>(f_.n) * f_.d, nn = static_cast<std::size_t>(f_.n) * f_.n;
    const std::size_t Ns = static_cast<std::size_t>(f_.state_size());
    const std::size_t K = static_cast<std::size_t>(order) + 1;
    if (x_.size() >= K * Ns) return;
    S z;
    set_zero(z, dirs_);
    x_.assign(K * Ns, z);
    order_cap_ = K;
    pos_.assign(K * N, z);
    // One slot per possible reference (at most n).
    dz_.assign(static_cast<std::size_t>(f_.n) * K * N, z);
    mdiff_.assign(N, z);
    adiff_.assign(dz_.size(), z);
    if (!f_.A_scalar) u_.assign(N, z);
    y_.assign(K * N, z);
    L_.assign(K * nn, z);
    E_.assign(K * nn, z);
    Z_.assign(K * f_.n, z);
    tmp_ = z;
    acc_.assign(static_cast<std::size_t>(f_.d), z);
  }

  /// r(i) = argmax_j ⟨x_i(0), A x_j(0)⟩ at the centres: any fixed column is exact (it scales a
  /// row of E and Z alike); the largest keeps every E_ij ≲ 1, so nothing overflows.
  void choose_references(const S* X, const S* U) {
    const int n = f_.n, d = f_.d;
    ref_.assign(static_cast<std::size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
      double best = -std::numeric_limits<double>::infinity();
      for (int j = 0; j < n; ++j) {
        double l = 0;
        for (int c = 0; c < d; ++c) l += approx_value(X[i * d + c]) * approx_value(U[j * d + c]);
        if (f_.A_scalar) l *= approx_value(f_.a);
        if (l > best) best = l, ref_[static_cast<std::size_t>(i)] = j;
      }
    }
    refs_.clear();
    slot_.assign(static_cast<std::size_t>(n), -1);
    for (int r : ref_)
      if (slot_[static_cast<std::size_t>(r)] < 0) {
        slot_[static_cast<std::size_t>(r)] = static_cast<int>(refs_.size());
        refs_.push_back(r);
      }
  }

  SphereField<I> f_;
  std::vector<int> ref_;   // r(i), the reference column of row i
  std::vector<int> refs_;  // the distinct references, in slot order
  std::vector<int> slot_;  // slot of reference r, or −1
  std::size_t order_cap_ = 0;
  int dirs_;
  std::vector<S> x_, pos_, y_, L_, E_, Z_;
  std::vector<S> u_;           // A x_j at the start (general A): the references' choice
  std::vector<S> dz_, adiff_;  // per reference slot and order: z_j − z_r, A M (z_j − z_r)
  std::vector<S> mdiff_;       // scratch: M (z_j − z_r) of one order
  std::vector<S> acc_;
  S tmp_;
  std::shared_ptr<ModelSeries<I, S>> general_;  // set when f_.model is
};

}  // namespace attnflow::verify

#include "attnflow/verify/model_series.hpp"  // ModelSeries, which SphereSeries hands a general field to
