#include "attnflow/config/attention_graph.hpp"

#include <vector>

namespace attnflow {

bool attends(const SimConfig& c, int i, int j) {
  if (c.causal && j > i) return false;
  return c.mask.empty() || c.mask[static_cast<std::size_t>(i) * static_cast<std::size_t>(c.n) + static_cast<std::size_t>(j)] != 0;
}

std::optional<int> token_without_self_loop(const SimConfig& c) {
  for (int i = 0; i < c.n; ++i)
    if (!attends(c, i, i)) return i;
  return std::nullopt;
}

namespace {

/// The tokens reached from `root` along key → query edges (j → i when i attends to j).
std::vector<bool> reached_from(const SimConfig& c, int root) {
  std::vector<bool> seen(static_cast<std::size_t>(c.n), false);
  std::vector<int> stack = {root};
  seen[static_cast<std::size_t>(root)] = true;
  while (!stack.empty()) {
    const int j = stack.back();
    stack.pop_back();
    for (int i = 0; i < c.n; ++i)
      if (!seen[static_cast<std::size_t>(i)] && attends(c, i, j)) seen[static_cast<std::size_t>(i)] = true, stack.push_back(i);
  }
  return seen;
}

}  // namespace

std::optional<int> attention_graph_root(const SimConfig& c) {
  // Kosaraju's first pass: the token finished last by a depth-first search lies in a source
  // component of the graph's condensation. A root, if any, lies in the only source component,
  // so the graph has a root exactly when that last token reaches every token.
  const auto n = static_cast<std::size_t>(c.n);
  std::vector<bool> visited(n, false);
  int last = 0;
  for (int start = 0; start < c.n; ++start) {
    if (visited[static_cast<std::size_t>(start)]) continue;
    // An explicit stack of (token, next successor to try), so n = 10^5 does not overflow the call stack.
    std::vector<std::pair<int, int>> stack = {{start, 0}};
    visited[static_cast<std::size_t>(start)] = true;
    while (!stack.empty()) {
      auto& [j, next] = stack.back();
      while (next < c.n && (visited[static_cast<std::size_t>(next)] || !attends(c, next, j))) ++next;
      if (next < c.n) {
        const int i = next++;
        visited[static_cast<std::size_t>(i)] = true;
        stack.push_back({i, 0});
      } else {
        last = j;
        stack.pop_back();
      }
    }
  }
  const std::vector<bool> seen = reached_from(c, last);
  for (bool s : seen)
    if (!s) return std::nullopt;
  return last;
}

}  // namespace attnflow
