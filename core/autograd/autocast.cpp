#include "core/autograd/autocast.h"

namespace forge::ag {
namespace {

// Per thread, as grad mode: one thread's mixed-precision training leaves another's untouched.
thread_local MatmulPrecision current = MatmulPrecision::f32;

}  // namespace

MatmulPrecision autocast_precision() { return current; }

AutocastScope::AutocastScope(MatmulPrecision precision) : previous_(current) { current = precision; }

AutocastScope::~AutocastScope() { current = previous_; }

}  // namespace forge::ag
