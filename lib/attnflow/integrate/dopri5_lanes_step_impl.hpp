// The body of dopri5_lanes_step.hpp's functions, included by the two units that build them with
// ATTNFLOW_LANES_SUFFIX set to their names' suffix (no include guard: one inclusion per unit).
#include "attnflow/integrate/dopri5_lanes_step.hpp"
#include "attnflow/model/sphere_lanes_kernel.hpp"

#define ATTNFLOW_LANES_CAT2(a, b) a##b
#define ATTNFLOW_LANES_CAT(a, b) ATTNFLOW_LANES_CAT2(a, b)
#define ATTNFLOW_LANES_NAME(f) ATTNFLOW_LANES_CAT(f, ATTNFLOW_LANES_SUFFIX)

namespace attnflow::lanes {

namespace {

constexpr int W = kLanes;

/// Dormand–Prince 5(4): Butcher tableau, 5th-order weights (the 7th stage's row) and b − b̂.
constexpr double a21 = 1.0 / 5;
constexpr double a31 = 3.0 / 40, a32 = 9.0 / 40;
constexpr double a41 = 44.0 / 45, a42 = -56.0 / 15, a43 = 32.0 / 9;
constexpr double a51 = 19372.0 / 6561, a52 = -25360.0 / 2187, a53 = 64448.0 / 6561, a54 = -212.0 / 729;
constexpr double a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247, a64 = 49.0 / 176, a65 = -5103.0 / 18656;
constexpr double b1 = 35.0 / 384, b3 = 500.0 / 1113, b4 = 125.0 / 192, b5 = -2187.0 / 6784, b6 = 11.0 / 84;
constexpr double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920, e5 = -17253.0 / 339200, e6 = 22.0 / 525,
                 e7 = -1.0 / 40;

/// out = x + Σ_s (h·coef_s) k[s] over the listed stages, lane-wise, the terms added in order.
template <int S> void combine(const Block& b, int size, const double (&coef)[S], const int (&stage)[S], double* out) {
  const LaneVector h = lane_load(b.h);
  LaneVector c[S];
  for (int s = 0; s < S; ++s) c[s] = h * coef[s];
  for (int p = 0; p < size; p += W) {
    LaneVector v = lane_load(b.x + p);
    for (int s = 0; s < S; ++s) v += c[s] * lane_load(b.k[stage[s]] + p);
    lane_store(out + p, v);
  }
}

}  // namespace

void ATTNFLOW_LANES_NAME(rhs_)(const Block& b, const double* x, double* out) {
  sphere_lanes_rhs(b.model, b.beta, x, out, b.scratch, b.spread_ok);
  for (int w = 0; w < W; ++w)
    if (!b.spread_ok[w]) {
      b.fallback.evaluate(b.fallback.context, x, out, b.spread_ok);
      break;
    }
}

void ATTNFLOW_LANES_NAME(step_)(const Block& b) {
  const int size = b.model.n * b.model.d * W;
  combine<1>(b, size, {a21}, {0}, b.y);
  ATTNFLOW_LANES_NAME(rhs_)(b, b.y, b.k[1]);
  combine<2>(b, size, {a31, a32}, {0, 1}, b.y);
  ATTNFLOW_LANES_NAME(rhs_)(b, b.y, b.k[2]);
  combine<3>(b, size, {a41, a42, a43}, {0, 1, 2}, b.y);
  ATTNFLOW_LANES_NAME(rhs_)(b, b.y, b.k[3]);
  combine<4>(b, size, {a51, a52, a53, a54}, {0, 1, 2, 3}, b.y);
  ATTNFLOW_LANES_NAME(rhs_)(b, b.y, b.k[4]);
  combine<5>(b, size, {a61, a62, a63, a64, a65}, {0, 1, 2, 3, 4}, b.y);
  ATTNFLOW_LANES_NAME(rhs_)(b, b.y, b.k[5]);
  combine<5>(b, size, {b1, b3, b4, b5, b6}, {0, 2, 3, 4, 5}, b.x_new);
  ATTNFLOW_LANES_NAME(rhs_)(b, b.x_new, b.k[6]);
  // The error norm, as odeint's default_error_checker with a_x = a_dxdt = 1; a NaN stays NaN.
  const double e[6] = {e1, e3, e4, e5, e6, e7};
  const int stage[6] = {0, 2, 3, 4, 5, 6};
  const LaneVector h = lane_load(b.h), rtol = lane_load(b.rtol), atol = lane_load(b.atol);
  const LaneVector habs = lane_abs(h);
  LaneVector c[6];
  for (int s = 0; s < 6; ++s) c[s] = h * e[s];
  for (int w = 0; w < W; ++w) b.error[w] = 0;
  for (int p = 0; p < size; p += W) {
    LaneVector err = {};
    for (int s = 0; s < 6; ++s) err += c[s] * lane_load(b.k[stage[s]] + p);
    const LaneVector x = lane_load(b.x + p), k1 = lane_load(b.k[0] + p);
    const LaneVector scale = atol + rtol * (lane_abs(x) + habs * lane_abs(k1));
    const LaneVector r = lane_abs(err) / scale;
    for (int w = 0; w < W; ++w) b.error[w] = r[w] > b.error[w] || r[w] != r[w] ? r[w] : b.error[w];
  }
}

}  // namespace attnflow::lanes

#undef ATTNFLOW_LANES_NAME
#undef ATTNFLOW_LANES_CAT
#undef ATTNFLOW_LANES_CAT2
