#pragma once
// Exact dot products of MPFR rows, for the logits ⟨β Q x_i, K x_j⟩ of the MPFR kernel. By
// mpfr_mul and mpfr_add a logit rounds 2d − 1 times, and at 50 digits most of each call is MPFR's
// bookkeeping (special values, exponent range, rounding), not the 3×3-limb product. Written as
// fixed-point integers with one binary point per matrix, the same sum is exact in mpn integer
// arithmetic and is rounded once, at the end: faster, and correctly rounded.
#include "attnflow/model/inplace_ops.hpp"
#include "attnflow/tokens.hpp"

#include <gmp.h>
#include <mpfr.h>

#include <algorithm>
#include <limits>
#include <vector>

namespace attnflow::fixed {

/// The entries of an MPFR matrix as sign · magnitude · 2^lsb exactly, one lsb for the matrix and
/// `width` limbs per magnitude.
class FixedRows {
 public:
  /// Converts m. False (the rows are then unusable) if an entry is NaN or infinite, or if the
  /// exponents spread over more than `max_extra_limbs` limbs beyond a significand: then the
  /// integers would be long and MPFR's own arithmetic the cheaper way.
  template <class M> bool assign(const Eigen::MatrixBase<M>& m, long max_extra_limbs) {
    cols_ = m.cols();
    const Eigen::Index count = m.size();
    auto entry = [&](Eigen::Index k) { return inplace::raw(m.derived().coeff(k / cols_, k % cols_)); };
    mpfr_exp_t lo = std::numeric_limits<mpfr_exp_t>::max(), hi = std::numeric_limits<mpfr_exp_t>::min();
    long size = 1;  // limbs of the longest significand
    for (Eigen::Index k = 0; k < count; ++k) {
      mpfr_srcptr x = entry(k);
      if (mpfr_zero_p(x)) continue;
      if (!mpfr_regular_p(x)) return false;
      size = std::max(size, limbs(x));
      lo = std::min(lo, low_exponent(x));
      hi = std::max(hi, mpfr_get_exp(x));
    }
    sign_.assign(static_cast<std::size_t>(count), 0);
    if (hi < lo) {  // all zero
      width_ = 0;
      return true;
    }
    const long bits = GMP_NUMB_BITS;
    width_ = static_cast<long>((hi - lo + bits - 1) / bits);
    if (width_ > size + max_extra_limbs) return false;
    lsb_ = lo;
    magnitude_.assign(static_cast<std::size_t>(count * width_), 0);
    for (Eigen::Index k = 0; k < count; ++k) {
      mpfr_srcptr x = entry(k);
      if (mpfr_zero_p(x)) continue;
      sign_[static_cast<std::size_t>(k)] = static_cast<signed char>(mpfr_sgn(x));
      // (MPFR's custom interface: the significand's limbs, read in place; mpfr_get_z_2exp would
      // allocate an integer per entry.)
      const auto* src = static_cast<const mp_limb_t*>(mpfr_custom_get_significand(const_cast<mpfr_ptr>(x)));
      const long n = limbs(x), shift = static_cast<long>(low_exponent(x) - lo), skip = shift / bits;
      mp_limb_t* dst = magnitude_.data() + k * width_ + skip;
      if (shift % bits == 0) {
        mpn_copyi(dst, src, n);
      } else {
        const mp_limb_t out = mpn_lshift(dst, src, n, static_cast<unsigned>(shift % bits));
        if (skip + n < width_) dst[n] = out;  // (else out is 0: the value fits in width_ limbs)
      }
    }
    return true;
  }

  /// r = Σ_k A(i, k)·B(j, k) over the columns both have, rounded once to r's precision (to nearest). `scratch` is the
  /// caller's (one per thread); it grows on first use only.
  static void dot(mpfr_ptr r, const FixedRows& A, Eigen::Index i, const FixedRows& B, Eigen::Index j,
                  std::vector<mp_limb_t>& scratch) {
    const long wa = A.width_, wb = B.width_;
    if (wa == 0 || wb == 0) {
      mpfr_set_zero(r, 1);
      return;
    }
    // The sum of d products of wa + wb limbs fits, with its sign, in one more limb; negative
    // products are subtracted in two's complement.
    const long wp = wa + wb, wacc = wp + 1;
    if (scratch.size() < static_cast<std::size_t>(wp + wacc)) scratch.resize(static_cast<std::size_t>(wp + wacc));
    mp_limb_t* prod = scratch.data();
    mp_limb_t* acc = prod + wp;
    std::fill(acc, acc + wacc, mp_limb_t(0));
    const mp_limb_t* a = A.magnitude_.data() + i * A.cols_ * wa;
    const mp_limb_t* b = B.magnitude_.data() + j * B.cols_ * wb;
    const signed char* sa = A.sign_.data() + i * A.cols_;
    const signed char* sb = B.sign_.data() + j * B.cols_;
    const Eigen::Index terms = std::min(A.cols_, B.cols_);
    for (Eigen::Index k = 0; k < terms; ++k, a += wa, b += wb) {
      const int s = sa[k] * sb[k];
      if (s == 0) continue;
      if (wa >= wb)
        mpn_mul(prod, a, wa, b, wb);
      else
        mpn_mul(prod, b, wb, a, wa);
      if (s > 0)
        mpn_add(acc, acc, wacc, prod, wp);
      else
        mpn_sub(acc, acc, wacc, prod, wp);
    }
    const bool negative = (acc[wacc - 1] >> (GMP_NUMB_BITS - 1)) != 0;
    if (negative) mpn_neg(acc, acc, wacc);
    mpz_t view;
    mpz_roinit_n(view, acc, negative ? -wacc : wacc);
    mpfr_set_z_2exp(r, view, A.lsb_ + B.lsb_, MPFR_RNDN);
  }

 private:
  /// A regular x is its significand's limbs, read as an integer, times 2^low_exponent(x).
  static long limbs(mpfr_srcptr x) { return static_cast<long>((mpfr_get_prec(x) + GMP_NUMB_BITS - 1) / GMP_NUMB_BITS); }
  static mpfr_exp_t low_exponent(mpfr_srcptr x) { return mpfr_get_exp(x) - limbs(x) * GMP_NUMB_BITS; }

  Eigen::Index cols_ = 0;
  long width_ = 0;
  mpfr_exp_t lsb_ = 0;
  std::vector<mp_limb_t> magnitude_;  // entry k at [k·width, (k + 1)·width), least significant limb first
  std::vector<signed char> sign_;     // −1, 0, +1
};

}  // namespace attnflow::fixed
