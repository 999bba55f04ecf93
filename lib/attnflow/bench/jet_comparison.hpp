#pragma once
// The flow's Jacobian jets computed both ways on one instance, side by side (bench key
// prove32x8_seconds, its details): the inf–sup jets (Jet<DInterval>) against the midpoint–radius
// jets the prover uses (midrad_jet.hpp), their time and how much wider the latter are.
#include <string>

namespace attnflow::bench {

struct JetComparison {
  double inf_sup_seconds = 0;          // the series of order `order` with every column's gradient, best of the runs
  double midpoint_radius_seconds = 0;  // the same with midpoint–radius gradients
  double widest_ratio = 0;             // the largest width of a gradient entry, midpoint–radius over inf–sup
  long entries = 0;                    // gradient entries compared (coefficients × state × columns)
  long disjoint = 0;                   // entries whose two enclosures do not meet (0 unless one is wrong)
};

/// On the start of the instance at `instance_path` (a simulate config prove takes), widened by
/// `box_width` in every coordinate as after some steps, each series computed `runs` times on one thread.
JetComparison compare_jacobian_jets(const std::string& instance_path, int order, double box_width, int runs);

}  // namespace attnflow::bench
