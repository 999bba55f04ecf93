#pragma once
// How far a measured value may be from the exact one before a clause calls it a difference: the
// one rule every statement's clauses are judged with, fixed in advance of any run.
namespace attnflow {

struct TolerancePolicy {
  /// Multiplies every derived error bound.
  static constexpr double kSafety = 10;
  /// Rounding of one evaluation of an observable, in units of eps per token coordinate.
  static constexpr double kRoundingPerCoordinate = 16;
  static const char* const kRule;

  /// The tolerance of an observable with Lipschitz constant `sensitivity` (per unit of token error)
  /// on n tokens in R^d whose largest coordinate is `largest`, measured with token error `error`
  /// at machine epsilon `eps`.
  static double tolerance(double sensitivity, double error, long n, long d, double eps, double largest);
};

}  // namespace attnflow
