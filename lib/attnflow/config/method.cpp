#include "attnflow/config/method.hpp"

#include <array>

namespace attnflow {

namespace {

//                                       name              order fixed  can_fix dense  lanes
constexpr std::array<MethodTraits, 7> kMethods = {{
    {Method::euler,          "euler",          1, true,  true,  false, false},
    {Method::rk4,            "rk4",            4, true,  true,  false, false},
    {Method::dopri5,         "dopri5",         5, false, true,  true,  true},
    {Method::rkf78,          "rkf78",          7, false, true,  false, false},
    {Method::bulirsch_stoer, "bulirsch-stoer", 0, false, false, true,  false},
    {Method::taylor,         "taylor",         0, false, true,  false, false},
    // The SDE scheme of the noisy models (kappa): projected Euler–Maruyama, weak order 1.
    {Method::euler_maruyama, "euler-maruyama", 1, true,  false, false, false},
}};

}  // namespace

const MethodTraits& traits(Method m) {
  for (const auto& t : kMethods)
    if (t.method == m) return t;
  return kMethods[2];  // unreachable: every enumerator is in the table (tests/config/sim_config.cpp)
}

std::optional<Method> method_named(std::string_view name) {
  for (const auto& t : kMethods)
    if (t.name == name) return t.method;
  return std::nullopt;
}

std::string method_names() {
  std::string out;
  for (const auto& t : kMethods) out += (out.empty() ? "" : ", ") + std::string(t.name);
  return out;
}

}  // namespace attnflow
