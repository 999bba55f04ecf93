#pragma once
// One Dormand–Prince 5(4) step of every lane of a block (integrate/dopri5_lanes.hpp drives it):
// the six stages, the new state and the error norm, each lane with its own step h, rtol, atol and
// β. Built twice (dopri5_lanes_step.cpp for the baseline, dopri5_lanes_step_avx2.cpp for AVX2)
// from one definition, dopri5_lanes_step_impl.hpp, and chosen at run time; both give the same bits.
#include "attnflow/model/sphere_lanes.hpp"

namespace attnflow::lanes {

/// Lane w's field recomputed by the model (the lanes whose spread_ok is false).
struct Fallback {
  void (*evaluate)(void* context, const double* x, double* out, const bool* spread_ok);
  void* context;
};

/// A block of kLanes states and what a step needs, as raw arrays (block = n·d·kLanes numbers).
struct Block {
  SphereLanesView model;
  SphereLanesScratch scratch;
  double* x;           // the states at t
  double* k[7];        // k[0]: the field at x (first same as last); k[1..6]: the stages
  double* y;           // stage argument
  double* x_new;       // the states at t + h
  const double* beta;  // per lane
  const double* h;
  const double* rtol;
  const double* atol;
  double* error;  // per lane: max_i |err_i| / (atol + rtol (|x_i| + h |k1_i|)) (odeint's norm)
  bool* spread_ok;
  Fallback fallback;
};

/// out = field(x) for every lane, the wide lanes through the fallback.
void rhs_baseline(const Block& b, const double* x, double* out);
void rhs_avx2(const Block& b, const double* x, double* out);
/// The six new stages, x_new and error for every lane (k[0] must hold the field at x).
void step_baseline(const Block& b);
void step_avx2(const Block& b);

}  // namespace attnflow::lanes
