// A build without LibTorch (the asan preset): `attnflow learn` cannot train and says so.
#include "attnflow/learn/classifier.hpp"

#include "attnflow/errors.hpp"

namespace attnflow::learn {

namespace {
[[noreturn]] void no_torch() {
  input_error("learn",
              "this build has no LibTorch (the asan preset leaves it out); use the release build: ./attnflow learn");
}
}  // namespace

void use_single_threaded_torch() {}
std::string blas_library() { return "none"; }
bool blas_allows_parallel_training() { return true; }
TrainedWeights train_classifier(const VariantInfo&, const Architecture&, const TrainingSettings&, const Batch&,
                                const std::vector<int>&, int, std::uint64_t) {
  no_torch();
}
std::vector<double> classifier_logits(const TrainedWeights&, const Batch&) { no_torch(); }
Tokens<double> torch_tokens_after(const TrainedWeights&, const std::vector<int>&, int) { no_torch(); }

}  // namespace attnflow::learn
