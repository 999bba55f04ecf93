#pragma once
// Certified good-triple hypothesis of [A] (Definition 4.1): the top eigenvalue λ_1 of V is real,
// positive, simple and strictly dominant (λ_1 > |λ_k| for k ≥ 2), and ⟨Qφ_1, Kφ_1⟩ > 0.
// Proved in double interval arithmetic with directed rounding, for the matrices exactly as
// stored in double:
//  1. Krawczyk's test on F(x, λ) = (Vx − λx, x_s − 1) gives boxes with exactly one real eigenpair
//     (λ_1, φ_1), φ_1 normalised by its largest approximate component s;
//  2. Brauer's theorem: M = V − φ_1 wᵀ with wᵀφ_1 = λ_1 has the eigenvalues {0, λ_2, …, λ_d};
//     ρ(M) ≤ ‖M^k‖_∞^{1/k} (k = 1, 2, 4, …) bounds every |λ_k|, k ≥ 2, from above; below λ_1 it
//     proves dominance and simplicity (a double λ_1 would remain an eigenvalue of M);
//  3. β⟨Qφ_1, Kφ_1⟩ is evaluated on the eigenvector box (the sign is scale-invariant).
// The interface carries no interval type: bounds come back as outward-rounded doubles.
#include "attnflow/tokens.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow::verify {

struct GoodTripleCertificate {
  bool eigenpair_verified = false;  // step 1 succeeded
  double lambda_lo = 0, lambda_hi = 0;
  std::vector<double> phi_lo, phi_hi;  // φ_1 with φ_1[s] = 1
  int normalising_index = 0;           // s
  double rest_radius = 0;              // upper bound of max_{k≥2} |λ_k| (step 2); +inf if none found
  int power = 0;                       // the k that gave it
  double sign_lo = 0, sign_hi = 0;     // enclosure of ⟨Qφ_1, Kφ_1⟩ times the sign of β
  bool dominant = false;               // λ_1 real, > 0, simple and > |λ_k|: proved
  bool sign_positive = false;          // ⟨Qφ_1, Kφ_1⟩ > 0: proved
  bool sign_negative = false;          // ⟨Qφ_1, Kφ_1⟩ < 0: proved (the negative control's hypothesis)
  std::string failure;                 // why a part could not be proved (empty when all proved)

  bool good() const { return dominant && sign_positive; }
  std::string summary() const;
  nlohmann::json to_json() const;
};

/// Certifies (or fails to certify) the good-triple conditions for square matrices of one size, the
/// sign condition on beta <Q phi_1, K phi_1> ([A] absorbs beta in Q): beta < 0 flips the sign,
/// beta = 0 is never good.
GoodTripleCertificate certify_good_triple(const Matrix<double>& Q, const Matrix<double>& K, const Matrix<double>& V,
                                          double beta = 1);

}  // namespace attnflow::verify
