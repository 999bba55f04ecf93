#pragma once
// The sums every Taylor recurrence is made of: Σ_{m=lo..hi} w_m a_m b_{k−m} (w_m = m or 1).
// In MPFR, mpfr_mul and mpfr_add round 2(k + 1) times per sum, and at 30–60 digits most of each
// call is MPFR's bookkeeping, not the two-limb product. Here the products are exact mpn
// integers, added in one fixed-point accumulator that keeps 2·(significand) + 64 bits below the
// largest term, and the sum is rounded once: fewer calls, and an error no larger than one
// rounding plus 2^-(2p+64) of the largest term (sequential adds lose 2^-p of each partial sum).
#include "attnflow/model/inplace_ops.hpp"

#include <gmp.h>
#include <mpfr.h>

#include <algorithm>
#include <limits>
#include <vector>

namespace attnflow::taylor {

template <class T> class CauchySum {
 public:
  /// r = Σ_{m=lo..hi} w_m a[m] b[k − m], w_m = m if `weighted`, else 1 (empty: 0).
  void operator()(T& r, const T* a, const T* b, int lo, int hi, int k, bool weighted) {
    if constexpr (is_mpfr<T>::value) {
      if (exact(r, a, b, lo, hi, k, weighted)) return;
    }
    inplace::set_zero(r);
    for (int m = lo; m <= hi; ++m) {
      inplace::mul(tmp_, a[m], b[k - m]);
      if (weighted && m != 1) tmp_ *= T(m);
      inplace::add(r, r, tmp_);
    }
  }

 private:
  /// The fixed-point sum; false (nothing written) if a term is NaN or infinite.
  bool exact(mpfr& r, const mpfr* a, const mpfr* b, int lo, int hi, int k, bool weighted) {
    const long bits = GMP_NUMB_BITS;
    mpfr_exp_t top = std::numeric_limits<mpfr_exp_t>::min();
    long limbs = 1;
    bool any = false;
    for (int m = lo; m <= hi; ++m) {
      mpfr_srcptr x = inplace::raw(a[m]), y = inplace::raw(b[k - m]);
      if (mpfr_zero_p(x) || mpfr_zero_p(y)) continue;
      if (!mpfr_regular_p(x) || !mpfr_regular_p(y)) return false;
      top = std::max(top, mpfr_get_exp(x) + mpfr_get_exp(y));
      limbs = std::max({limbs, size(x), size(y)});
      any = true;
    }
    if (!any) {
      mpfr_set_zero(inplace::raw(r), 1);
      return true;
    }
    // Bit 0 of the accumulator is 2^lsb. A term (weight < 2^16) tops out below bit
    // (2·limbs + 1)·64 + 16; the limbs above absorb the carries of up to 2^40 terms and the sign.
    const mpfr_exp_t lsb = top - (2 * limbs + 1) * bits;
    const long width = 2 * limbs + 3;
    acc_.assign(static_cast<std::size_t>(width), 0);
    prod_.resize(static_cast<std::size_t>(2 * limbs + 1));
    shifted_.resize(static_cast<std::size_t>(2 * limbs + 2));
    for (int m = lo; m <= hi; ++m) {
      mpfr_srcptr x = inplace::raw(a[m]), y = inplace::raw(b[k - m]);
      if (mpfr_zero_p(x) || mpfr_zero_p(y)) continue;
      const long nx = size(x), ny = size(y);
      const auto* sx = static_cast<const mp_limb_t*>(mpfr_custom_get_significand(const_cast<mpfr_ptr>(x)));
      const auto* sy = static_cast<const mp_limb_t*>(mpfr_custom_get_significand(const_cast<mpfr_ptr>(y)));
      if (nx >= ny)
        mpn_mul(prod_.data(), sx, nx, sy, ny);
      else
        mpn_mul(prod_.data(), sy, ny, sx, nx);
      long len = nx + ny;
      if (weighted && m != 1) {
        prod_[static_cast<std::size_t>(len)] = mpn_mul_1(prod_.data(), prod_.data(), len, static_cast<mp_limb_t>(m));
        ++len;
      }
      // The term is the integer prod · 2^low, low counted from the accumulator's bit 0.
      const long low = static_cast<long>((mpfr_get_exp(x) - nx * bits) + (mpfr_get_exp(y) - ny * bits) - lsb);
      long offset = 0, n = 0;
      if (low >= 0) {
        offset = low / bits;
        const unsigned shift = static_cast<unsigned>(low % bits);
        if (shift) {
          shifted_[static_cast<std::size_t>(len)] = mpn_lshift(shifted_.data(), prod_.data(), len, shift);
        } else {
          mpn_copyi(shifted_.data(), prod_.data(), len);
          shifted_[static_cast<std::size_t>(len)] = 0;
        }
        n = len + 1;
      } else {
        const long skip = (-low) / bits;
        if (skip >= len) continue;  // wholly below the accumulator's last bit
        const unsigned shift = static_cast<unsigned>((-low) % bits);
        n = len - skip;
        if (shift)
          mpn_rshift(shifted_.data(), prod_.data() + skip, n, shift);
        else
          mpn_copyi(shifted_.data(), prod_.data() + skip, n);
      }
      n = std::min(n, width - offset);
      if ((mpfr_signbit(x) != 0) != (mpfr_signbit(y) != 0))
        mpn_sub(acc_.data() + offset, acc_.data() + offset, width - offset, shifted_.data(), n);
      else
        mpn_add(acc_.data() + offset, acc_.data() + offset, width - offset, shifted_.data(), n);
    }
    const bool negative = (acc_[static_cast<std::size_t>(width - 1)] >> (bits - 1)) != 0;
    if (negative) mpn_neg(acc_.data(), acc_.data(), width);
    long used = width;
    while (used > 0 && acc_[static_cast<std::size_t>(used - 1)] == 0) --used;
    mpz_t view;
    mpz_roinit_n(view, acc_.data(), negative ? -used : used);
    mpfr_set_z_2exp(inplace::raw(r), view, lsb, MPFR_RNDN);
    return true;
  }

  static long size(mpfr_srcptr x) { return static_cast<long>((mpfr_get_prec(x) + GMP_NUMB_BITS - 1) / GMP_NUMB_BITS); }

  T tmp_ = T(0);  // at the precision the sum was made with (the tape's: one per run)
  std::vector<mp_limb_t> acc_, prod_, shifted_;
};

}  // namespace attnflow::taylor
