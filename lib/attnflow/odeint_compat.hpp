#pragma once
// The one place for Boost 1.74 odeint workarounds.
//
// odeint's detail::extract_value_type walks S::value_type until a type has none. A
// Boost.Multiprecision number defines value_type as itself, so the walk never ends and every
// controlled stepper (dopri5, rkf78, Bulirsch-Stoer) fails to compile on std::vector<mpfr>.
// Fixed upstream in Boost 1.85. Here we tell the global has_value_type trait (odeint declares
// it with BOOST_MPL_HAS_XXX_TRAIT_DEF at global scope) that numbers have no value_type to walk.
#include <boost/multiprecision/number.hpp>
#include <boost/numeric/odeint/algebra/detail/extract_value_type.hpp>
#include <boost/version.hpp>

#if BOOST_VERSION < 108500
template <class Backend, boost::multiprecision::expression_template_option ET, class Fallback>
struct has_value_type<boost::multiprecision::number<Backend, ET>, Fallback> : boost::mpl::false_ {};
#endif

#include <boost/numeric/odeint.hpp>
