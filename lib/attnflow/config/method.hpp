#pragma once
// The integration methods as one enum with one table of what each method is. Every rule that
// depends on the method (fixed steps or controlled, dense output, the SIMD lanes, the step's
// order) reads the table instead of comparing names, as Boost.Odeint reads a stepper's category.
#include <optional>
#include <string>
#include <string_view>

namespace attnflow {

enum class Method { euler, rk4, dopri5, rkf78, bulirsch_stoer, taylor, euler_maruyama };

struct MethodTraits {
  Method method;
  std::string_view name;  // as written in configs and trajectory.json
  int order;              // the step's order (taylor: chosen per step from the tolerance, 0 here)
  bool always_fixed;      // no error control at all: steps of dt (euler, rk4)
  bool can_fix_step;      // "fixed_step": true runs the method at steps of at most dt
  bool dense_output;      // samples interpolated between free steps, not landed on
  bool lanes;             // the SIMD lanes integrator (integrate/dopri5_lanes) implements it
};

const MethodTraits& traits(Method m);
inline std::string_view method_name(Method m) { return traits(m).name; }
/// The method of that name (nothing for an unknown name).
std::optional<Method> method_named(std::string_view name);
/// Every method's name, in the table's order, for messages: "euler, rk4, …".
std::string method_names();

/// A run of m takes steps of a given size without error control: always for euler and rk4, for
/// the others when fixed steps are asked for.
inline bool takes_fixed_steps(Method m, bool fixed_step_asked) { return traits(m).always_fixed || fixed_step_asked; }

}  // namespace attnflow
