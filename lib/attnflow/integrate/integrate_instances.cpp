// integrate() for the systems every layer uses (the extern declarations in integrate.hpp): a model
// of each scalar kind, and the type-erased vector fields (vector_field.hpp) in double and MPFR.
#include "attnflow/integrate/integrate.hpp"

namespace attnflow {

template Trajectory<double> integrate<double, Model<double>>(const Model<double>&, const Tokens<double>&,
                                                             const IntegrationSettings<double>&);
template Trajectory<long double> integrate<long double, Model<long double>>(const Model<long double>&,
                                                                            const Tokens<long double>&,
                                                                            const IntegrationSettings<long double>&);
template Trajectory<float128> integrate<float128, Model<float128>>(const Model<float128>&, const Tokens<float128>&,
                                                                   const IntegrationSettings<float128>&);
template Trajectory<mpfr> integrate<mpfr, Model<mpfr>>(const Model<mpfr>&, const Tokens<mpfr>&,
                                                       const IntegrationSettings<mpfr>&);
template Trajectory<double> integrate<double, ErasedField<double>>(const ErasedField<double>&, const Tokens<double>&,
                                                             const IntegrationSettings<double>&);
template Trajectory<mpfr> integrate<mpfr, ErasedField<mpfr>>(const ErasedField<mpfr>&, const Tokens<mpfr>&,
                                                       const IntegrationSettings<mpfr>&);

}  // namespace attnflow
