#pragma once
// The outward-rounded double box of an interval vector (Box of prove.hpp), for results and
// certificates. Internal to lib/attnflow/verify/*.cpp (it includes interval.hpp).
#include "attnflow/verify/interval.hpp"
#include "attnflow/verify/prove.hpp"

#include <vector>

namespace attnflow::verify {

template <class I> Box box_of(double t, const std::vector<I>& X) {
  Box b;
  b.t = t;
  for (const I& x : X) {
    b.lo.push_back(iv::lower_double(x));
    b.hi.push_back(iv::upper_double(x));
  }
  return b;
}

}  // namespace attnflow::verify
