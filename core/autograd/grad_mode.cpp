#include "core/autograd/grad_mode.h"

namespace forge::ag {
namespace {

// Per thread, so a NoGradScope in one thread (say, an evaluation loop) leaves another
// thread's training untouched.
thread_local bool recording = true;

}  // namespace

bool grad_enabled() { return recording; }

GradModeScope::GradModeScope(bool enabled) : previous_(recording) { recording = enabled; }

GradModeScope::~GradModeScope() { recording = previous_; }

}  // namespace forge::ag
