// The models of the four precisions, instantiated once (model.hpp declares them extern).
#include "attnflow/model/model.hpp"

namespace attnflow {

template class Model<double>;
template class Model<long double>;
template class Model<float128>;
template class Model<mpfr>;
template Model<double> build_model<double>(const SimConfig&);
template Model<long double> build_model<long double>(const SimConfig&);
template Model<float128> build_model<float128>(const SimConfig&);
template Model<mpfr> build_model<mpfr>(const SimConfig&);

}  // namespace attnflow
