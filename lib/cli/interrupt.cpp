#include "cli/interrupt.hpp"

#include <csignal>

namespace attnflow::cli {

namespace {
std::atomic<bool> g_interrupted{false};
using Handler = void (*)(int);
Handler g_previous = SIG_DFL, g_previous_term = SIG_DFL;
bool g_terminate_too = false;

extern "C" void on_interrupt(int signal) {
  g_interrupted = true;
  std::signal(signal, SIG_DFL);  // a second one ends the program at once
}
}  // namespace

InterruptFlag::InterruptFlag(bool terminate_too) {
  g_interrupted = false;
  g_previous = std::signal(SIGINT, on_interrupt);
  g_terminate_too = terminate_too;
  if (terminate_too) g_previous_term = std::signal(SIGTERM, on_interrupt);
}

InterruptFlag::~InterruptFlag() {
  std::signal(SIGINT, g_previous);
  if (g_terminate_too) std::signal(SIGTERM, g_previous_term);
}

const std::atomic<bool>& InterruptFlag::flag() const { return g_interrupted; }

}  // namespace attnflow::cli
