#include "attnflow/catalogue/user_observables.hpp"

#include "attnflow/errors.hpp"

#include <atomic>
#include <cctype>

namespace attnflow {

namespace {

std::mutex& scope_mutex() {
  static std::mutex m;
  return m;
}

/// The live scope's entries (set before a check starts its threads, cleared after they end).
std::atomic<const std::vector<ObservableDef>*> live{nullptr};

bool valid_name(const std::string& name) {
  if (name.size() <= kUserObservablePrefix.size() || name.compare(0, kUserObservablePrefix.size(), kUserObservablePrefix) != 0)
    return false;
  for (std::size_t k = kUserObservablePrefix.size(); k < name.size(); ++k)
    if (!std::isalnum(static_cast<unsigned char>(name[k])) && name[k] != '_') return false;
  return true;
}

}  // namespace

UserObservables::UserObservables(std::vector<ObservableDef> observables)
    : lock_(scope_mutex()), observables_(std::move(observables)) {
  for (std::size_t k = 0; k < observables_.size(); ++k) {
    const ObservableDef& o = observables_[k];
    if (!valid_name(o.name))
      input_error("observables", "'" + o.name + "': a name is letters, digits or '_' (named \"py:NAME\" in a statement)");
    if (!o.user) input_error("observables", "'" + o.name + "' has no function");
    for (std::size_t j = 0; j < k; ++j)
      if (observables_[j].name == o.name) input_error("observables", "'" + o.name + "' is given twice");
  }
  live.store(&observables_);
}

UserObservables::~UserObservables() { live.store(nullptr); }

const ObservableDef* find_user_observable(const std::string& name) {
  const std::vector<ObservableDef>* l = live.load();
  if (!l) return nullptr;
  for (const ObservableDef& o : *l)
    if (o.name == name) return &o;
  return nullptr;
}

}  // namespace attnflow
