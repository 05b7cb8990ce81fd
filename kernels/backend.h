// The kernel backend chosen at build time (meson option `kernel_backend`; meson reserves the
// plain name `backend` for itself).
//
// A kernel exists in namespace forge::kernels::scalar (plain loops: the executable
// specification) and, in a simd build, in forge::kernels::simd (xsimd, tuned for the build's
// instruction set) with the same signature; docs/ARCHITECTURE.md lists the few that exist once
// and why. The op front-end in core/ calls
// forge::kernels::active::<kernel>, an alias for one of the two, so the choice costs nothing
// at run time. Tests call both namespaces directly and compare them.
#pragma once

#include <string_view>

namespace forge::kernels {
namespace scalar {}
namespace simd {}

#if defined(FORGE_BACKEND_SIMD)
namespace active = simd;
inline constexpr std::string_view kBackendName = "simd";
inline constexpr bool kHasSimdBackend = true;
#else
namespace active = scalar;
inline constexpr std::string_view kBackendName = "scalar";
inline constexpr bool kHasSimdBackend = false;
#endif

// The widest instruction set the build targets, e.g. "avx512bw", "avx2", "sse4.2", "neon".
std::string_view instruction_set();

}  // namespace forge::kernels
