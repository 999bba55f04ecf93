#pragma once
// A clause of a conclusion as the judge reads it: what kind of claim, the relation and the
// number it is made against. Which observable it is about is the statement's business
// (statement_spec.hpp); the judge sees only that observable's values (clause_series.hpp).
#include <string>

namespace attnflow {

struct Clause {
  enum class Kind {
    Bound,     // observable at T (or at every sample) <= or >= a value
    Limit,     // observable -> value as t grows: reached at T up to the tolerance
    Monotone,  // non-increasing or non-decreasing along the trajectory
    Rate,      // |observable - limit| decays like e^{-rate t}: rate =, >= or <= a claimed value
    Equals     // observable equals a reference value, at T or at every sample, within the tolerance
  };
  Kind kind = Kind::Bound;
  std::string relation;       // Bound: "<=" ">="; Monotone: "non-increasing" "non-decreasing"; Rate: "=" ">=" "<="
  double value = 0;           // Bound: the bound; Limit and Rate: the limit; Equals: the reference
  double claimed = 0;         // Rate: the claimed rate
  bool every_sample = false;  // Bound, Equals: at every sample instead of at T
  double within = 0;          // Limit: also reached when |observable(T) - limit| <= within (numerically)
  bool algebraic = false;     // Limit: also reached by a power-law decay over the second half (numerically)
  bool attainable = false;    // Bound: the bound may be attained; within the tolerance of it is consistent
  bool power_law = false;     // Rate: |observable - limit| decays like C t^{-rate} instead of C e^{-rate t}

  /// Whether the clause is about the distance |observable - value| (its figure and tolerance guide).
  bool about_distance() const { return kind == Kind::Limit || kind == Kind::Rate || kind == Kind::Equals; }
};

}  // namespace attnflow
