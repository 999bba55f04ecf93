#include "attnflow/config/circle_setting.hpp"

#include <fmt/format.h>

namespace attnflow {

std::string circle_setting_refusal(const SimConfig& c) {
  if (c.model->kind != ModelKind::SaSphere && c.model->kind != ModelKind::UsaSphere)
    return std::string("the model is ") + c.model->id + ", not sa-sphere or usa-sphere";
  if (c.d != 2) return fmt::format("d = {}: the setting is the circle (d = 2)", c.d);
  if (c.heads.size() != 1) return "more than one head";
  for (const WeightSpec* w : {&c.heads[0].Q, &c.heads[0].K, &c.heads[0].V})
    if (w->kind != WeightSpec::Kind::Constant || w->values.size() != 1 ||
        w->values.front().kind != MatrixSpec::Kind::Identity)
      return "Q, K and V are not all the identity";
  if (c.causal || !c.mask.empty()) return "a mask: the setting has every token attend to every key";
  if (!c.kappa.empty()) return "noise (kappa): the setting is the deterministic flow";
  return "";
}

}  // namespace attnflow
