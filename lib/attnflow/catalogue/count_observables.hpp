#pragma once
// Counts a statement may name beside the registry's measures: how many distinct levels the tokens
// take along the normal of [A] Thm 4.1's hyperplanes, and the rank of the attention matrix. Each is
// thresholded (a clause gives "delta") and carries an ambiguity: how many of the gaps (singular
// values) it compares with delta lie within the computation's error of delta, so the count is
// certain only when there are none.
#include "attnflow/catalogue/observable_registry.hpp"

namespace attnflow {

/// "hyperplane_levels": the tokens' projections <x_i, v> on the unit normal v of the hyperplanes
/// {phi_1^*(x) = c} (V's left eigenvector for its top eigenvalue, which must be real and simple;
/// head 1, constant weights), grouped by 1-D single linkage at delta: 1 + the gaps above delta.
ObservableDef hyperplane_levels_observable();

/// "attention_rank": the singular values of head 1's attention matrix at the sample above delta.
ObservableDef attention_rank_observable();

}  // namespace attnflow
