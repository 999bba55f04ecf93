#pragma once
// 17 significant digits: the decimal text of a double that reads back to the same double, as
// certificates store their numbers (so a re-check compares text exactly).
#include <cstdio>
#include <string>

namespace attnflow::verify {

inline std::string g17(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

}  // namespace attnflow::verify
