#include "attnflow/version.hpp"
#include "attnflow/catalogue/catalogue.hpp"
#include "attnflow/errors.hpp"

namespace attnflow {

std::uint64_t CheckContext::instance_seed(std::uint64_t index) const {
  std::uint64_t h = mix_seed(suite_seed);
  for (unsigned char ch : id) h = mix_seed(h ^ ch);
  return mix_seed(h ^ mix_seed(index + 1)) & 0x7fffffffffffULL;  // fits a JSON integer exactly
}

long CheckContext::integer(const std::string& key, long fallback) const {
  if (!params.contains(key)) return fallback;
  if (!params.at(key).is_number_integer()) input_error(id + "." + key, "must be an integer");
  return params.at(key).get<long>();
}

double CheckContext::real(const std::string& key, double fallback) const {
  if (!params.contains(key)) return fallback;
  if (!params.at(key).is_number()) input_error(id + "." + key, "must be a number");
  return params.at(key).get<double>();
}

std::string CheckContext::text(const std::string& key, const std::string& fallback) const {
  if (!params.contains(key)) return fallback;
  if (!params.at(key).is_string()) input_error(id + "." + key, "must be a string");
  return params.at(key).get<std::string>();
}

std::string statement_path(const std::string& id) {
  return std::string(attnflow::source_dir()) + "/proofs/" + id + ".tex";
}

}  // namespace attnflow
