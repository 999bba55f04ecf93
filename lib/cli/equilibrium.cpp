// attnflow equilibrium --config FILE.json [--out DIR]   → DIR/certificate.json, DIR/proof.tex
// attnflow equilibrium --check certificate.json
// Exit codes: 0 certified / certificate verified, 1 no equilibrium certified (nothing written) /
// certificate rejected, 2 bad input (also a config outside both theorems: the circle with
// Q = K = V = I, verify/equilibrium.hpp; the sphere in any dimension, verify/sphere_equilibrium.hpp).
#include "attnflow/config/json_fields.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/report/equilibrium_appendix.hpp"
#include "attnflow/verify/equilibrium.hpp"
#include "attnflow/verify/sphere_equilibrium.hpp"
#include "cli/commands.hpp"

#include <fmt/format.h>
#include <iostream>

namespace attnflow::cli {

namespace {

struct EquilibriumOptions {
  std::string config, check, out = "out/equilibrium";
};

int certify(const EquilibriumOptions& o) {
  const SimConfig c = load_sim_config(o.config);
  // The circle with Q = K = V = I, its rotations quotiented; otherwise the sphere in any dimension,
  // for a field whose equilibria are isolated.
  const std::string circle_refusal = verify::circle_equilibrium_refusal(c);
  const bool circle = circle_refusal.empty();
  const verify::ProveInstance in = circle ? verify::circle_instance(c) : verify::sphere_instance(c);
  if (!circle)
    if (const std::string why = verify::sphere_equilibrium_refusal(in); !why.empty())
      input_error("equilibrium", "outside both proofs: the circle's (" + circle_refusal + ") and the sphere's (" + why + ")");
  std::vector<double> guess;
  for (const std::string& p : in.points) guess.push_back(decimal_as_double(p));
  const verify::EquilibriumResult r =
      circle ? verify::certify_circle_equilibrium(in, guess) : verify::certify_sphere_equilibrium(in, guess);
  if (!r.proved) {
    std::cerr << "attnflow: no equilibrium certified: " << r.reason << "\n";
    return 1;
  }
  nlohmann::json cert = verify::make_equilibrium_certificate(in, r);
  write_files_atomically({{o.out + "/certificate.json", cert.dump(1) + "\n"}, {o.out + "/proof.tex", equilibrium_appendix_tex(cert)}});
  std::string spectrum;
  for (const verify::SpectrumPart& p : r.transverse_spectrum)
    spectrum += fmt::format("{}[{:.6g}, {:.6g}] x{}", spectrum.empty() ? "" : ", ", p.lo, p.hi, p.count);
  std::cout << fmt::format(
      "attnflow: equilibrium certified: unique in a box of radius {:.3g}{} ({} Newton steps); {}{}; transverse real "
      "parts {}\n",
      r.radius, circle || r.centre.size() > std::size_t(in.n * in.d) ? " on the rotation slice" : "",
      r.newton_iterations, r.stability,
      r.stability == "unstable"
          ? fmt::format(" (a saddle of index {}{})", r.index_exact ? "" : "at least ", r.unstable_directions)
          : "",
      spectrum);
  std::cout << "attnflow: wrote " << o.out << "/certificate.json and " << o.out << "/proof.tex\n";
  return 0;
}

}  // namespace

void register_equilibrium(CLI::App& app) {
  auto o = std::make_shared<EquilibriumOptions>();
  auto* sub = app.add_subcommand(
      "equilibrium", "certify an equilibrium near a config's start (Krawczyk; the circle, or the sphere in any dimension) and its stability → DIR/certificate.json, proof.tex");
  auto* config = sub->add_option("--config", o->config, "config whose init is the approximate equilibrium (JSON)");
  auto* check = sub->add_option("--check", o->check, "re-verify a certificate.json by recomputing it");
  config->excludes(check);
  sub->add_option("--out", o->out, "output directory")->check(non_empty_path())->capture_default_str();
  add_command(sub, [o] {
    if (!o->check.empty()) {
      const verify::CheckResult r = verify::check_equilibrium_certificate(read_json_file(o->check));
      (r.accepted ? std::cout : std::cerr)
          << "attnflow: " << r.message << (r.accepted ? fmt::format(" (recomputed in {:.2f} s)", r.seconds) : "")
          << "\n";
      return r.accepted ? 0 : 1;
    }
    if (o->config.empty()) throw InputError("equilibrium: give --config FILE.json or --check certificate.json");
    return certify(*o);
  });
}

}  // namespace attnflow::cli
