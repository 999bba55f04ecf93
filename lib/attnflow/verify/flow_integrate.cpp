// The integration loop of the rigorous provers (flow_problem.hpp), instantiated once per interval
// kind. Compiled with -frounding-math (see CMakeLists.txt).
#define ATTNFLOW_ROUNDING_TU
#include "attnflow/verify/flow_problem.hpp"

namespace attnflow::verify {

template <class I>
bool integrate(const Problem<I>& pb, LohnerSet<I> X, const ProveOptions& o, const std::vector<double>& targets,
               const typename FlowLoop<I>::OnStep& on_step, std::string& why, double& t_out, long& steps_out,
               std::vector<double>& hs) {
  StepSettings s;
  s.order = o.order;
  s.jet_order = o.jet_order;
  s.tol = o.tol;
  s.h_min = kTimeQuantum;
  s.h_max = o.max_step;
  s.rem_tol = o.rem_tol;
  std::unique_ptr<SphereField<MInterval>> precise;
  if constexpr (std::is_same_v<I, DInterval>) {
    DigitsScope scope(PreciseLowOrders::kDigits);
    precise = std::make_unique<SphereField<MInterval>>(Problem<MInterval>(pb.instance).field);
  }
  SphereIntegrator<I> integrator(pb.field, s, precise.get());
  double t = 0;
  long steps = 0;
  std::size_t replay = 0;
  for (double target : targets) {
    while (t != target) {
      if (steps >= o.max_steps) {
        why = "step limit " + std::to_string(o.max_steps) + " reached at t = " + g17(t);
        t_out = t;
        steps_out = steps;
        return false;
      }
      double h_max = target - t;  // exact: both are multiples of the quantum
      const bool replaying = !o.steps.empty();
      if (replaying) {
        if (replay >= o.steps.size()) {
          why = "the certificate's step list ends at t = " + g17(t);
          t_out = t;
          steps_out = steps;
          return false;
        }
        h_max = o.steps[replay++];
      }
      StepInfo info;
      bool ok;
      LohnerSet<I> next = X;
      {
        RoundUpward up;
        ok = integrator.step(next, h_max, info, why, replaying);
      }
      if (ok && replaying && info.h != h_max) {
        ok = false;
        why = "a step of the certificate could not be validated";
      }
      if (ok && std::abs(info.h) < kTimeQuantum) {
        ok = false;
        why = "step size fell below 2^-24";
      }
      if (!ok) {
        why += " at t = " + g17(t);
        t_out = t;
        steps_out = steps;
        return false;
      }
      X = std::move(next);
      t += info.h;
      ++steps;
      hs.push_back(info.h);
      std::vector<I> hull;
      {
        RoundUpward up;
        hull = pb.tokens(X.hull());
      }
      if (!on_step(t, hull, steps)) {
        t_out = t;
        steps_out = steps;
        return true;
      }
    }
  }
  t_out = t;
  steps_out = steps;
  return true;
}

template bool integrate<DInterval>(const Problem<DInterval>&, LohnerSet<DInterval>, const ProveOptions&,
                                   const std::vector<double>&, const FlowLoop<DInterval>::OnStep&, std::string&,
                                   double&, long&, std::vector<double>&);
template bool integrate<MInterval>(const Problem<MInterval>&, LohnerSet<MInterval>, const ProveOptions&,
                                   const std::vector<double>&, const FlowLoop<MInterval>::OnStep&, std::string&,
                                   double&, long&, std::vector<double>&);

}  // namespace attnflow::verify
