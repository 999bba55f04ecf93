#include "attnflow/catalogue/user_observables.hpp"

#include "attnflow/errors.hpp"

#include <atomic>
#include <cctype>

namespace attnflow {

namespace {

/// The live scope's entries (set before a check starts its threads, cleared after they end);
/// nullptr while no scope lives.
std::atomic<const std::vector<ObservableDef>*> live{nullptr};

bool valid_name(const std::string& name) {
  if (name.size() <= kUserObservablePrefix.size() || name.compare(0, kUserObservablePrefix.size(), kUserObservablePrefix) != 0)
    return false;
  for (std::size_t k = kUserObservablePrefix.size(); k < name.size(); ++k)
    if (!std::isalnum(static_cast<unsigned char>(name[k])) && name[k] != '_') return false;
  return true;
}

}  // namespace

UserObservables::UserObservables(std::vector<ObservableDef> observables) : observables_(std::move(observables)) {
  for (std::size_t k = 0; k < observables_.size(); ++k) {
    const ObservableDef& o = observables_[k];
    if (!valid_name(o.name))
      input_error("observables", "'" + o.name + "': a name is letters, digits or '_' (named \"py:NAME\" in a statement)");
    if (!o.user) input_error("observables", "'" + o.name + "' has no function");
    for (std::size_t j = 0; j < k; ++j)
      if (observables_[j].name == o.name) input_error("observables", "'" + o.name + "' is given twice");
  }
  // Taken only when no scope lives (waiting could never end when the live scope's own observable
  // started this one).
  const std::vector<ObservableDef>* none = nullptr;
  if (!live.compare_exchange_strong(none, &observables_))
    input_error("observables", "another check with Python observables is running in this process (one at a time)");
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
