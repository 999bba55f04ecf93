#pragma once
// The certified predicates of the provers, evaluated on an enclosure (a box of every token): each
// returns true only when the property holds at every point of the box, so a box that straddles
// a predicate's boundary gives false ("not proved"). Kept apart from the provers so that the
// soundness tests (tests/verify_soundness.cpp) can evaluate them on boxes they build.
// Internal to lib/attnflow/verify/*.cpp and the soundness tests (it includes interval.hpp).
#include "attnflow/verify/prove.hpp"
#include "attnflow/verify/sphere_series.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace attnflow::verify {

/// min_i ⟨w, x_i⟩ over every point of the box, rounded down; > 0 certifies the hemisphere (NaN
/// when a bound is not a number).
template <class I> double hemisphere_margin(const std::vector<I>& X, const std::vector<double>& w, int n, int d) {
  RoundUpward up;
  double margin = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) {
    I s(0);
    for (int c = 0; c < d; ++c) s += X[static_cast<std::size_t>(i * d + c)] * I(w[static_cast<std::size_t>(c)]);
    const double l = iv::lower_double(s);
    if (std::isnan(l)) return l;  // std::min would drop it: NaN certifies nothing
    margin = std::min(margin, l);
  }
  return margin;
}

/// P_ij over the box: 1 / Σ_k exp(⟨x_i, A(x_k − x_j)⟩) (A = βQ^T K, or a·I; d = 1: a x_i (x_k − x_j)),
/// the k = j term exactly 1 (no overflow for a captured entry, whose exponents are ≤ 0). An entry
/// whose exponents overflow double is enclosed by [0, 1 / Σ_k exp(lower e_k)], or [0, 1e-300]
/// when even that overflows.
template <class I> I attention_entry(const std::vector<I>& x, const SphereField<I>& f, std::size_t i, std::size_t j) {
  const std::size_t d = static_cast<std::size_t>(f.d), n = x.size() / d;
  std::vector<I> e;
  std::vector<I> diff(d);
  I s(1);
  for (std::size_t k = 0; k < n; ++k) {
    if (k == j) continue;
    for (std::size_t c = 0; c < d; ++c) diff[c] = x[k * d + c] - x[j * d + c];
    I l(0);
    for (std::size_t c = 0; c < d; ++c) {
      I u(0);
      if (f.A_scalar)
        u = f.a * diff[c];
      else
        for (std::size_t b = 0; b < d; ++b) u += f.A[c * d + b] * diff[b];
      l += x[i * d + c] * u;
    }
    e.push_back(l);
    s += iv::exp(l);
  }
  if (iv::finite(s)) return I(1) / s;
  I s_low(1);
  for (const I& ek : e) s_low += iv::exp(iv::point<I>(iv::lower(ek)));
  if (!iv::finite(s_low)) return iv::interval<I>(point_t<I>(0), point_t<I>(1e-300));
  return iv::interval<I>(point_t<I>(0), iv::upper(I(1) / s_low));
}

/// The vertex-capture predicate on one enclosure of x(T) (d ≥ 2). Each row's candidate leader is
/// its largest logit at the box centres (any choice is sound: the bound is what is certified).
template <class I>
bool vertex_capture(const std::vector<I>& x, const SphereField<I>& f, double epsilon, BooleanCapture& c) {
  const std::size_t d = static_cast<std::size_t>(f.d), n = x.size() / d;
  c = BooleanCapture{};
  c.epsilon = epsilon;
  c.leader.assign(n, -1);
  c.p_lead_lo.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t lead = 0;
    double best = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < n; ++j) {
      double l = 0;
      for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = 0; b < d; ++b) {
          const double A = f.A_scalar ? (a == b ? approx_value(f.a) : 0.0) : approx_value(f.A[a * d + b]);
          l += approx_value(x[i * d + a]) * A * approx_value(x[j * d + b]);
        }
      if (l > best) best = l, lead = j;
    }
    const I p = attention_entry(x, f, i, lead);
    c.p_lead_lo[i] = iv::lower_double(p);
    if (!(iv::upper_double(I(1) - p) <= epsilon)) return false;  // P_i,lead ≥ 1 − ε, rounded upward
    c.leader[i] = static_cast<int>(lead);
    c.min_capture = std::min(c.min_capture, c.p_lead_lo[i]);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const int l = c.leader[i];
    if (c.leader[static_cast<std::size_t>(l)] != l) return false;  // a leader must capture itself
    if (std::find(c.leaders.begin(), c.leaders.end(), l) == c.leaders.end()) c.leaders.push_back(l);
  }
  std::sort(c.leaders.begin(), c.leaders.end());
  return true;
}

/// The predicate on one enclosure of x(T) (n tokens, d = 1). Fills c; true when it holds.
template <class I>
bool boolean_capture(const std::vector<I>& x, const SphereField<I>& f, double epsilon, BooleanCapture& c) {
  const std::size_t n = x.size();
  c = BooleanCapture{};
  c.epsilon = epsilon;
  // The extreme tokens, certified: the box of x_left lies below every other box.
  for (std::size_t i = 0; i < n; ++i) {
    bool below = true, above = true;
    for (std::size_t k = 0; k < n; ++k) {
      if (k == i) continue;
      below = below && iv::upper(x[i]) < iv::lower(x[k]);
      above = above && iv::lower(x[i]) > iv::upper(x[k]);
    }
    if (below) c.left = static_cast<int>(i);
    if (above) c.right = static_cast<int>(i);
  }
  if (c.left < 0 || c.right < 0) return false;
  int uncertified = 0;
  c.sign.assign(n, 0);
  c.leader.assign(n, -1);
  c.p_lead_lo.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    c.sign[i] = iv::lower_double(x[i]) > 0 ? 1 : iv::upper_double(x[i]) < 0 ? -1 : 0;
    const int lead = c.sign[i] > 0 ? c.right : c.sign[i] < 0 ? c.left : -1;
    if (lead >= 0) {
      const I p = attention_entry(x, f, i, static_cast<std::size_t>(lead));
      c.p_lead_lo[i] = iv::lower_double(p);
      // 1 − P_i,lead ≤ ε, rounded upward: P_i,lead ≥ 1 − ε exactly.
      if (iv::upper_double(I(1) - p) <= epsilon) {
        c.leader[i] = lead;
        c.min_capture = std::min(c.min_capture, c.p_lead_lo[i]);
        continue;
      }
    }
    ++uncertified;
    c.exceptional = static_cast<int>(i);
  }
  if (uncertified > 1) return false;
  if (c.exceptional >= 0)
    for (std::size_t j = 0; j < n; ++j) {
      const I p = attention_entry(x, f, static_cast<std::size_t>(c.exceptional), j);
      c.exceptional_lo.push_back(iv::lower_double(p));
      c.exceptional_hi.push_back(iv::upper_double(p));
    }
  return true;
}

/// βQ^T K ≻ 0 certified by an interval Cholesky factorisation of the symmetric part of the
/// enclosure of A = βQ^T K: every pivot's lower bound > 0 (d ≥ 2).
template <class I> bool certified_positive_definite(const SphereField<I>& f) {
  if (f.A_scalar) return iv::lower_double(f.a) > 0;
  const std::size_t d = static_cast<std::size_t>(f.d);
  std::vector<I> S(d * d);
  for (std::size_t a = 0; a < d; ++a)
    for (std::size_t b = 0; b < d; ++b) S[a * d + b] = (f.A[a * d + b] + f.A[b * d + a]) / I(2);
  for (std::size_t k = 0; k < d; ++k) {
    if (!(iv::lower_double(S[k * d + k]) > 0)) return false;
    const I L = iv::sqrt(S[k * d + k]);
    for (std::size_t i = k + 1; i < d; ++i) S[i * d + k] = S[i * d + k] / L;
    for (std::size_t i = k + 1; i < d; ++i)
      for (std::size_t j = k + 1; j <= i; ++j) S[i * d + j] = S[i * d + j] - S[i * d + k] * S[j * d + k];
  }
  return true;
}

}  // namespace attnflow::verify
