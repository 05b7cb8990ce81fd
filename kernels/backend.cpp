#include "kernels/backend.h"

namespace forge::kernels {

std::string_view instruction_set() {
    // Decided by the compiler flags (-march), not by probing the CPU at run time: this is
    // what the kernels were compiled for.
#if defined(__AVX512BW__)
    return "avx512bw";
#elif defined(__AVX512F__)
    return "avx512f";
#elif defined(__AVX2__) && defined(__FMA__)
    return "avx2+fma";
#elif defined(__AVX2__)
    return "avx2";
#elif defined(__AVX__)
    return "avx";
#elif defined(__SSE4_2__)
    return "sse4.2";
#elif defined(__SSE2__)
    return "sse2";
#elif defined(__ARM_NEON)
    return "neon";
#else
    return "generic";
#endif
}

}  // namespace forge::kernels
