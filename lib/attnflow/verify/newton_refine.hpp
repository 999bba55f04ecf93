#pragma once
// Newton's method in double on a square system, as the equilibrium proofs refine a start before
// Krawczyk's test (equilibrium.hpp on the circle, sphere_equilibrium.hpp in any dimension): the
// system gives its residual and Jacobian at a point (the midpoints of its interval evaluation) and
// the rigorous bound of its residual at the end.
#include <Eigen/Dense>

#include <functional>
#include <string>
#include <vector>

namespace attnflow::verify {

/// The boxes' radii a proof tries in turn, from rounding level up: the smallest on which Krawczyk's
/// operator closes (a box of 1e-6 is still a proof).
inline const std::vector<double> kProofRadii = {1e-13, 1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6};

struct NewtonOutcome {
  Eigen::VectorXd z;     // the last iterate: the box's centre
  double residual = 0;   // max |E(z)|, rigorously bounded
  int iterations = 0;
  std::string failure;   // why z is no centre to prove on; empty when it is one
};

struct NewtonSystem {
  /// E(z) and E'(z) in double; false when z is no point of the system (a token left the sphere).
  std::function<bool(const Eigen::VectorXd& z, Eigen::VectorXd& E, Eigen::MatrixXd& J)> at;
  /// An upper bound of max |E(z)|.
  std::function<double(const Eigen::VectorXd& z)> residual;
};

/// Newton's steps from `start` until a step is below 1e-15 (at most 60). A failure when the
/// Jacobian is singular, the residual ends above 1e-9 (Newton converges quadratically near a
/// nondegenerate zero: a larger one means the start was near none), or the first `compared`
/// coordinates moved by more than `reach` (a config's start is the approximate equilibrium: one far
/// from it is not the one asked for).
inline NewtonOutcome newton_refine(const Eigen::VectorXd& start, const NewtonSystem& system, double reach,
                                   Eigen::Index compared) {
  NewtonOutcome out;
  out.z = start;
  const Eigen::Index N = start.size();
  bool point = true;
  for (; out.iterations < 60; ++out.iterations) {
    Eigen::VectorXd E(N);
    Eigen::MatrixXd J(N, N);
    if (!(point = system.at(out.z, E, J))) break;
    const Eigen::FullPivLU<Eigen::MatrixXd> lu(J);
    if (!lu.isInvertible()) {
      out.residual = E.lpNorm<Eigen::Infinity>();
      out.failure = "Newton's method met a singular Jacobian (a degenerate equilibrium, one on a continuum, or none "
                    "near the guess)";
      return out;
    }
    const Eigen::VectorXd step = lu.solve(E);
    out.z -= step;
    if (!out.z.allFinite()) {
      point = false;
      break;
    }
    if (step.lpNorm<Eigen::Infinity>() <= 1e-15) {
      ++out.iterations;
      break;
    }
  }
  out.residual = point ? system.residual(out.z) : HUGE_VAL;
  if (!(out.residual <= 1e-9)) {
    out.failure = "not near an equilibrium: Newton's method ended with residual " + std::to_string(out.residual) +
                  " after " + std::to_string(out.iterations) + " iterations";
    return out;
  }
  const double moved = (out.z - start).head(compared).lpNorm<Eigen::Infinity>();
  if (!(moved <= reach))
    out.failure = "not near an equilibrium: Newton's method moved the start by " + std::to_string(moved) +
                  " (more than " + std::to_string(reach) + ") to reach one";
  return out;
}

}  // namespace attnflow::verify
