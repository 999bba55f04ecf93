#pragma once
// The graph of a config's attention: token i attends to token j (the mask, the causal rule)
// is an edge j → i, along which information flows from the key to the query. Rank-collapse
// theorems for masked attention (Wu, Ajorlou, Wang, Jegelka, Jadbabaie, arXiv:2405.18781) assume
// it has every self-loop and is quasi-strongly connected: some token (a root) reaches every other.
#include "attnflow/config/sim_config.hpp"

#include <optional>

namespace attnflow {

/// Whether token i attends to token j under c's mask and causal rule.
bool attends(const SimConfig& c, int i, int j);

/// A token that does not attend to itself, if there is one.
std::optional<int> token_without_self_loop(const SimConfig& c);

/// A root of the attention graph (a token from which every token is reached along the edges
/// key → query), if there is one: the graph is then quasi-strongly connected. O(n²).
std::optional<int> attention_graph_root(const SimConfig& c);

}  // namespace attnflow
