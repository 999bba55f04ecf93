#pragma once
// A vector field given as a callable f(x, dxdt, t), as a system integrate() accepts beside
// Model<T>: the reference ODEs and augmented systems of the diagnostics (γ(t) of [B] Theorem 6.8,
// Benettin's tangent flow) then run through the same stepping loops as every model.
//
// vector_field() erases the callable's type: every field of one scalar kind is then the one system
// type ErasedField<T>, whose stepping loops (all of odeint's steppers over T) are compiled once, in
// integrate/integrate_instances.cpp, rather than once per callable in each unit that integrates one.
#include "attnflow/tokens.hpp"

#include <functional>
#include <string>
#include <utility>

namespace attnflow {

template <class T, class F> struct VectorField {
  std::string name;  // recorded as the trajectory's model
  int n = 1, d = 1;  // the state: n·d numbers, sampled as n rows of d
  F f;

  std::string id() const { return name; }
  bool discrete() const { return false; }
  void rhs(const State<T>& x, State<T>& dxdt, const T& t) const {
    dxdt.resize(x.size());
    f(x, dxdt, t);
  }
};

/// The type every vector_field() of scalar kind T has.
template <class T> using ErasedField = VectorField<T, std::function<void(const State<T>&, State<T>&, const T&)>>;

template <class T, class F> ErasedField<T> vector_field(std::string name, int n, int d, F f) {
  return ErasedField<T>{std::move(name), n, d, std::move(f)};
}

}  // namespace attnflow
