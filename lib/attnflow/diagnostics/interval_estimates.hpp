#pragma once
// Confidence intervals for a proportion and for a mean of paired differences.
#include <utility>
#include <vector>

namespace attnflow {

/// Wilson's 95 % interval of a binomial proportion hits/n ({0, 1} when n = 0).
std::pair<double, double> wilson_95(long hits, long n);

/// Student's t on paired differences d_1…d_m: their mean, its 95 % interval (t with m − 1 degrees
/// of freedom) and the two-sided p-value of "mean = 0". With m < 2 or no spread the interval is the
/// mean itself and p is 1 (no spread, mean 0) or 0. `overlap` > 0 is Nadeau and Bengio's correction
/// for cross-validation folds, whose training sets overlap: the variance of the mean is taken as
/// (1/m + overlap)·s² with overlap = n_test/n_train (Machine Learning 52, 2003).
struct PairedT {
  long m = 0;
  double mean = 0, sd = 0, low = 0, high = 0, p_value = 1;
};
PairedT paired_t(const std::vector<double>& differences, double overlap = 0);

}  // namespace attnflow
