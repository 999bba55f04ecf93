#pragma once
// How an attention row is normalised: by its sum (softmax, "SA") or by n (unnormalised, "USA").
// A config-level choice, so it lives below the model that applies it.

namespace attnflow {

enum class Normalization { Softmax, Uniform };

}  // namespace attnflow
