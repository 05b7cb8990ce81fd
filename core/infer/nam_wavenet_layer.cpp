#include "core/infer/nam_wavenet_layer.h"

#include "kernels/backend.h"

namespace forge::infer {

void nam_wavenet_layer(const NamWaveNetLayer& layer) noexcept { kernels::active::nam_wavenet_layer(layer); }

}  // namespace forge::infer
