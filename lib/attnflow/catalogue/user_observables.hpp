#pragma once
// Observables defined by the caller at run time (from Python: attnflow.check(observables={...})).
// While a UserObservables scope lives, find_observable also knows its entries, named "py:NAME", so
// statements name them like the registry's and the same runner, judge and confirmation apply.
// One scope at a time: a second one, while the first lives, is refused (InputError) rather than
// made to wait, which would never end if the first scope's observable started it. The runner's
// worker threads read the entries without a lock while a check runs.
#include "attnflow/catalogue/observable_registry.hpp"

#include <string>
#include <vector>

namespace attnflow {

/// The prefix that marks a caller's observable in a statement.
inline const std::string kUserObservablePrefix = "py:";

class UserObservables {
 public:
  /// Each entry's name must be "py:" followed by letters, digits or '_' (InputError otherwise), and
  /// carry `user`; names must differ.
  explicit UserObservables(std::vector<ObservableDef> observables);
  ~UserObservables();
  UserObservables(const UserObservables&) = delete;
  UserObservables& operator=(const UserObservables&) = delete;

 private:
  std::vector<ObservableDef> observables_;
};

/// The caller's observable called `name`, while a scope lives; nullptr otherwise.
const ObservableDef* find_user_observable(const std::string& name);

}  // namespace attnflow
