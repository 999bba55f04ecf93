#include "cli/interrupt.hpp"

#include <csignal>

namespace attnflow::cli {

namespace {
std::atomic<bool> g_interrupted{false};
using Handler = void (*)(int);
Handler g_previous = SIG_DFL;

extern "C" void on_sigint(int) {
  g_interrupted = true;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the program at once
}
}  // namespace

InterruptFlag::InterruptFlag() {
  g_interrupted = false;
  g_previous = std::signal(SIGINT, on_sigint);
}

InterruptFlag::~InterruptFlag() { std::signal(SIGINT, g_previous); }

const std::atomic<bool>& InterruptFlag::flag() const { return g_interrupted; }

}  // namespace attnflow::cli
