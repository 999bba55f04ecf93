#pragma once
#include "attnflow/diagnostics/rates.hpp"

#include <stdexcept>

namespace attnflow {

/// The automatic exponential fit, or an empty one (NaN rate) when no sample is above the floor.
template <class T> ExponentialFit exponential_fit_or_none(const std::vector<T>& t, const std::vector<T>& y, const T& floor) {
  try {
    return fit_exponential_auto<T>(t, y, floor);
  } catch (const std::invalid_argument&) { return ExponentialFit{}; }
}

}  // namespace attnflow
