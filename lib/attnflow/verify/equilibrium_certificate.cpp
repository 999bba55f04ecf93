// The certificate of an equilibrium, on the circle with its rotations quotiented (equilibrium.hpp)
// or on the sphere without a symmetry (sphere_equilibrium.hpp): written from the proof's result, and
// re-verified by recomputing the proof on the stored box. The box's layout says which proof.
#include "attnflow/config/json_fields.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/verify/decimal17.hpp"
#include "attnflow/verify/equilibrium.hpp"
#include "attnflow/verify/sphere_equilibrium.hpp"
#include "attnflow/version.hpp"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <set>

namespace attnflow::verify {

namespace {

constexpr const char* kKind = "attnflow-equilibrium";

constexpr const char* kTheorem =
    "Krawczyk: if K(X) = c - C E(c) + (I - C E'(X))(X - c) lies in the interior of the box X for an invertible C, "
    "E has exactly one zero in X (Krawczyk 1969; Moore 1977)";

constexpr const char* kQuotient =
    "rotations of the circle: the slice <x_1, p^perp> = 0 (p the first token's centre) and the unfolding term "
    "lambda u_i^perp, which vanishes at a zero: sum_i Z_i <F_i, u_i^perp> = 0 for Q = K = V = I (the weights "
    "exp(beta <x_i, x_j>) are symmetric, <x_j, x_i^perp> antisymmetric), so sum_i Z_i (-lambda) = 0";

constexpr const char* kExistence =
    "exactly one equilibrium of the flow lies in the box on the slice (with lambda = 0 and |x_i| = 1); every "
    "rotation of it is an equilibrium, and no other equilibrium meets the slice inside the box";

constexpr const char* kStability =
    "transverse spectrum: the eigenvalues of the linearisation on the quotient by rotations (the angular "
    "velocities' Jacobian A with A 1 = 0, in the basis (1, e_2, ..., e_n)); their real parts lie in the listed "
    "intervals, count each; stable: every real part < 0; unstable: the listed count > 0";

constexpr const char* kCircleLayout = "x_1, y_1, ..., x_n, y_n, lambda";

constexpr const char* kSphereLayout = "x_1 (d coordinates), ..., x_n (d coordinates)";

constexpr const char* kSphereQuotient =
    "none: the system E_i = F_i(u) + (|x_i|^2 - 1) u_i (u_i = x_i/|x_i|) in R^(nd) is square; F_i(u) is tangent at "
    "u_i, so <E_i, u_i> = |x_i|^2 - 1 and its zeros are exactly the equilibria (unit tokens); a field with a "
    "continuous symmetry has none isolated, and its proof fails";

constexpr const char* kSphereExistence =
    "exactly one zero of E lies in the box: an equilibrium of the flow with |x_i| = 1, and no other equilibrium "
    "lies in the box";

constexpr const char* kSphereStability =
    "spectrum on the spheres: the eigenvalues of M = B^T E'(X) B, B an orthonormal basis of the tangent space "
    "(each token's Householder reflection without its normal column, enclosed on the box); at a zero E' maps each "
    "radial direction to twice itself and the tangent space into itself, so these are the eigenvalues of the "
    "flow's linearisation on the product of spheres; their real parts lie in the listed intervals, count each; "
    "stable: every real part < 0; unstable: the listed count > 0";

constexpr const char* kRotationLayout =
    "x_1 (d coordinates), ..., x_n (d coordinates), lambda_1, ..., lambda_m (m: the dimension of the rotations' "
    "orbit through the tokens)";

constexpr const char* kRotationQuotient =
    "rotations of R^d (d >= 3, Q = K = V = I: every rotation commutes with the field): generators G_1 ... G_m "
    "(skew; from the SVD of the plane rotations' directions at the centre's tokens c, m the orbit's dimension), "
    "the slice <x, G_k c> = 0 and the unfolding term sum_k lambda_k G_k u_i, which vanishes at a zero: |x_i| = 1, "
    "F_i = -T u_i with T = sum_k lambda_k G_k, and sum_i Z_i <F_i, T u_i> = 0 (the weights exp(beta <x_i, x_j>) "
    "are symmetric, <x_j, T x_i> antisymmetric), so T u_i = 0 for every i, and the G_k u_i are independent (the "
    "bordered Jacobian is proved nonsingular), so lambda = 0";

constexpr const char* kRotationStability =
    "transverse spectrum: the eigenvalues of M = B^T E'(X) B on the spheres' tangent spaces (as without a "
    "symmetry), less the m eigenvalues 0 of the orbit directions G_k u_i (independent, mapped to 0 at the "
    "equilibrium), taken out of the one part holding 0; their real parts lie in the listed intervals, count each; "
    "stable: every real part < 0; unstable: the listed count > 0";

const std::vector<std::string> kIdentity2 = {"1", "0", "0", "1"};

nlohmann::json spectrum_json(const std::vector<SpectrumPart>& parts) {
  nlohmann::json list = nlohmann::json::array();
  for (const SpectrumPart& p : parts) list.push_back({{"real_part", {g17(p.lo), g17(p.hi)}}, {"count", p.count}});
  return list;
}

void require_keys(const nlohmann::json& j, const std::string& where, const std::set<std::string>& allowed) {
  if (!j.is_object()) input_error(where, "expected an object");
  for (const auto& [key, value] : j.items())
    if (!allowed.count(key)) input_error(where + "." + key, "unknown key");
  for (const std::string& key : allowed)
    if (!j.contains(key)) input_error(where + "." + key, "missing");
}

double exact_double(const nlohmann::json& v, const std::string& where) {
  if (!v.is_string()) input_error(where, "expected a decimal string");
  const std::string s = v.get<std::string>();
  if (!is_decimal_literal(s)) input_error(where, "\"" + s + "\" is not a decimal");
  return std::strtod(s.c_str(), nullptr);
}

}  // namespace

std::string circle_instance_refusal(const ProveInstance& in) {
  if (in.model != "sa-sphere" && in.model != "usa-sphere") return "model must be sa-sphere or usa-sphere";
  if (in.d != 2) return "d must be 2 (the circle)";
  if (in.n < 2) return "n must be at least 2";
  if (in.heads.size() != 1 || in.heads.front().Q != kIdentity2 || in.heads.front().K != kIdentity2 ||
      in.heads.front().V != kIdentity2)
    return "one head with Q = K = V = identity (\"1\", \"0\", \"0\", \"1\")";
  if (in.causal || !in.W.empty() || in.per_layer()) return "no mask, no ffn, constant weights";
  if (!is_decimal_literal(in.beta)) return "beta must be a decimal";
  return "";
}

nlohmann::json make_equilibrium_certificate(const ProveInstance& in, const EquilibriumResult& r) {
  nlohmann::json centre = nlohmann::json::array();
  for (double c : r.centre) centre.push_back(g17(c));
  // The circle proof's box has the unfolding parameter after the 2n coordinates; the sphere's has n·d,
  // then one unfolding parameter per dimension of the rotations' orbit when they are quotiented.
  const bool circle = in.d == 2 && r.centre.size() == static_cast<std::size_t>(2 * in.n + 1);
  const bool rotations = !circle && r.centre.size() > static_cast<std::size_t>(in.n * in.d);
  const nlohmann::json hypotheses =
      circle ? nlohmann::json{"the circle: d = 2, one head with Q = K = V = identity, no mask (read exactly from the "
                              "instance)",
                              "beta and the weights are the enclosures of their decimals",
                              "the field is the model's own (Model<T> on intervals, with its derivative by forward "
                              "differentiation)"}
             : nlohmann::json{"a sphere model (sa-sphere or usa-sphere), d >= 2, n d <= " +
                                  std::to_string(kMaxSphereCoordinates) +
                                  ", constant weights, no mask, no feed-forward part (read exactly from the instance)" +
                                  (rotations ? "; d >= 3 and one head with Q = K = V = identity (each decimal exactly 1 "
                                               "or 0)"
                                             : ""),
                              "beta and the weights are the enclosures of their decimals",
                              "the field is the model's own (Model<T> on intervals, with its derivative by forward "
                              "differentiation)"};
  return {{"kind", kKind},
          {"theorem", kTheorem},
          {"instance", in.to_json()},
          {"hypotheses", hypotheses},
          {"quotient", circle ? kQuotient : rotations ? kRotationQuotient : kSphereQuotient},
          {"box",
           {{"centre", centre},
            {"radius", g17(r.radius)},
            {"layout", circle ? kCircleLayout : rotations ? kRotationLayout : kSphereLayout}}},
          {"existence", circle || rotations ? kExistence : kSphereExistence},
          {"stability_method", circle ? kStability : rotations ? kRotationStability : kSphereStability},
          {"stability", r.stability},
          {"unstable_directions", r.unstable_directions},
          {"index_exact", r.index_exact},
          {"transverse_spectrum", spectrum_json(r.transverse_spectrum)},
          {"newton", {{"iterations", r.newton_iterations}, {"residual", g17(r.newton_residual)}}},
          {"attnflow_version", kVersion}};
}

CheckResult check_equilibrium_certificate(const nlohmann::json& j) {
  const auto start = std::chrono::steady_clock::now();
  require_keys(j, "certificate",
               {"kind", "theorem", "instance", "hypotheses", "quotient", "box", "existence", "stability_method",
                "stability", "unstable_directions", "index_exact", "transverse_spectrum", "newton",
                "attnflow_version"});
  if (j.at("kind") != kKind) input_error("certificate.kind", std::string("expected \"") + kKind + "\"");
  require_keys(j.at("instance"), "certificate.instance", {"model", "n", "d", "beta", "points", "heads"});
  const ProveInstance in = ProveInstance::from_json(j.at("instance"));
  require_keys(j.at("box"), "certificate.box", {"centre", "radius", "layout"});
  const nlohmann::json& layout = j.at("box").at("layout");
  if (layout != kCircleLayout && layout != kSphereLayout && layout != kRotationLayout)
    input_error("certificate.box.layout", std::string("expected \"") + kCircleLayout + "\", \"" + kSphereLayout +
                                              "\" or \"" + kRotationLayout + "\"");
  const bool circle = layout == kCircleLayout, rotations = layout == kRotationLayout;
  // Before anything the size of n·d is allocated.
  if (circle && in.n > kMaxCircleTokens)
    input_error("certificate.instance.n", "at most " + std::to_string(kMaxCircleTokens) + " tokens");
  if (!circle && (in.n < 1 || in.d < 1 || static_cast<long>(in.n) * in.d > kMaxSphereCoordinates))
    input_error("certificate.instance", "n d must be at most " + std::to_string(kMaxSphereCoordinates));
  const std::size_t size = circle ? static_cast<std::size_t>(2 * in.n + 1) : static_cast<std::size_t>(in.n * in.d);
  const nlohmann::json& list = j.at("box").at("centre");
  // With the rotations, m is recomputed from the tokens by the proof, which refuses another count.
  const std::size_t most = rotations ? size + static_cast<std::size_t>(in.d * (in.d - 1) / 2) : size;
  if (!list.is_array() || list.size() < (rotations ? size + 1 : size) || list.size() > most)
    input_error("certificate.box.centre", circle      ? "expected 2n + 1 decimal strings"
                                          : rotations ? "expected n d + m decimal strings, 1 <= m <= d(d - 1)/2"
                                                      : "expected n d decimal strings");
  std::vector<double> centre;
  for (std::size_t k = 0; k < list.size(); ++k) {
    const std::string where = "certificate.box.centre[" + std::to_string(k) + "]";
    centre.push_back(exact_double(list[k], where));
    // Unit tokens and a small unfolding parameter: anything larger is no box of this proof, and
    // would only take the interval arithmetic out of double's range.
    if (!(std::abs(centre.back()) <= 2)) input_error(where, "must be a finite decimal of magnitude at most 2");
  }
  const double radius = exact_double(j.at("box").at("radius"), "certificate.box.radius");
  CheckResult out;
  // The proofs divide by each token's length: a token far from the unit sphere is no box of theirs.
  const int coordinates = circle ? 2 : in.d;
  for (int i = 0; i < in.n; ++i) {
    double norm = 0;
    for (int c = 0; c < coordinates; ++c) norm = std::hypot(norm, centre[static_cast<std::size_t>(i * coordinates + c)]);
    if (!(norm >= 0.5)) {
      out.message = "certificate rejected: token " + std::to_string(i + 1) + " of the box's centre is not near the unit " +
                    (circle ? "circle" : "sphere") + " (length " + g17(norm) + ")";
      return out;
    }
  }
  std::string refusal = circle ? circle_instance_refusal(in) : sphere_equilibrium_refusal(in);
  if (refusal.empty() && !circle && rotations != rotation_symmetric(in))
    refusal = rotations ? "the box unfolds rotations the field does not commute with (d >= 3, one head with "
                          "Q = K = V = identity)"
                        : "the field commutes with the rotations (d >= 3, Q = K = V = identity): its box unfolds them";
  if (!refusal.empty()) {
    out.message = "certificate rejected: the instance is outside the theorem: " + refusal;
    return out;
  }
  if (!(radius > 0) || radius > 1e-3) {
    out.message = "certificate rejected: the box's radius must be in (0, 1e-3]";
    return out;
  }
  const EquilibriumResult r = circle ? prove_circle_equilibrium_on_box(in, centre, radius)
                                     : prove_sphere_equilibrium_on_box(in, centre, radius);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r.proved) {
    out.message = "certificate rejected: " + r.reason;
    return out;
  }
  // Every claim must be the recomputed one, text for text.
  const nlohmann::json again = make_equilibrium_certificate(in, r);
  for (const char* key : {"theorem", "quotient", "existence", "stability_method", "stability", "unstable_directions",
                          "index_exact", "transverse_spectrum", "hypotheses"})  // and the box's layout, above
    if (j.at(key) != again.at(key)) {
      out.message = std::string("certificate rejected: ") + key + " is not what the recomputation gives (" +
                    again.at(key).dump() + ")";
      return out;
    }
  out.accepted = true;
  out.message = "certificate verified: an equilibrium of " + in.model + " with n = " + std::to_string(in.n) +
                (circle ? " on the circle" : " on the sphere in d = " + std::to_string(in.d)) + ", beta = " + in.beta +
                ", unique in a box of radius " + g17(radius) + ", " +
                r.stability +
                (r.stability == "unstable" ? " (" + std::to_string(r.unstable_directions) + " unstable directions" +
                                                 (r.index_exact ? ")" : " at least)")
                                           : "");
  return out;
}

}  // namespace attnflow::verify
