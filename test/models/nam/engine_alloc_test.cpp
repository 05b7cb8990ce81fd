// The real-time promise of forge::nam::Engine: after construction, process() never allocates.
// This executable replaces the global operator new with one that counts calls, so it lives
// apart from the other tests.
#include "models/nam/engine.h"
#include "models/nam/factory.h"
#include "models/nam/live/live_engine.h"
#include "models/nam/nam_file.h"
#include "test/models/nam/fixtures.h"

#include <atomic>
#include <cmath>
#include <filesystem>
#include <cstdlib>
#include <new>
#include <vector>

namespace {
std::atomic<long> g_allocations{0};
}

// g++ 12 flags free() in the replaced operator delete as "mismatched" with operator new,
// although both are replaced here and new allocates with malloc: a known false positive.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void* operator new(std::size_t size) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, std::align_val_t align) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    const auto a = static_cast<std::size_t>(align);
    if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t align) { return operator new(size, align); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace forge::nam {
namespace {

// Full blocks, ragged blocks and single frames through a model, counting allocations.
long allocations_while_processing(const std::filesystem::path& model) {
    Engine engine(make_model(read_nam_file(model)), 128);
    std::vector<float> in(128), out(128);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = 0.3f * static_cast<float>((i * 37) % 17) / 17.0f - 0.15f;

    const long before = g_allocations.load();
    // Enough rounds to wrap every conv's line buffer.
    for (int round = 0; round < 400; ++round) {
        const std::size_t n = round % 3 == 0 ? 128 : (round % 3 == 1 ? 1 + round % 127 : 1);
        engine.process(std::span<const float>(in).first(n), std::span<float>(out).first(n));
    }
    return g_allocations.load() - before;
}

class EngineAllocation : public ::testing::TestWithParam<const char*> {};

TEST_P(EngineAllocation, ProcessingAllocatesNothing) {
    FORGE_REQUIRE_NAM_FIXTURES();
    EXPECT_EQ(allocations_while_processing(testing::fixtures() / GetParam()), 0) << "allocations during processing";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, EngineAllocation,
                         ::testing::Values("wavenet.nam", "lstm.nam", "wavenet_a1_standard.nam", "A2.nam",
                                           "wavenet_a2_max.nam", "wavenet_condition_dsp.nam",
                                           "slimmable_container.nam", "identity/linear_10.nam"),
                         [](const auto& info) { return "model_" + std::to_string(info.index); });

// The same promise on the project's own committed models (test/data/nam/core, every
// architecture: WaveNet variants, LSTM, ConvNet, linear, slimmable container), which need
// nothing outside the project.
class CommittedEngineAllocation : public ::testing::TestWithParam<const char*> {};

TEST_P(CommittedEngineAllocation, ProcessingAllocatesNothing) {
    EXPECT_EQ(allocations_while_processing(testing::test_data() / "core" / GetParam()), 0)
        << "allocations during processing";
}

INSTANTIATE_TEST_SUITE_P(Committed, CommittedEngineAllocation,
                         ::testing::Values("wavenet_classic.nam", "wavenet_gated.nam", "wavenet_film.nam",
                                           "wavenet_condition_dsp.nam", "wavenet_slimmable.nam", "lstm_2x3.nam",
                                           "convnet_batchnorm.nam", "linear_fft.nam", "container.nam"),
                         [](const auto& info) { return "model_" + std::to_string(info.index); });

// The live callback's whole work (gains, model, meters, the recording ring) on 64-frame
// blocks, as `forge nam live --record` runs it, and on ragged ones: zero allocations. The
// main thread's drain (which may allocate) runs between the counted blocks. Every few rounds a
// model swap: `model` again (the `r` key), or the next of `others` in turn (`load PATH`),
// built here and taken up and crossfaded in the callback.
long allocations_while_playing_live(const std::filesystem::path& model, double device_rate = 48000.0,
                                    const std::vector<std::filesystem::path>& others = {}) {
    LiveOptions options;
    options.sample_rate = device_rate;
    options.render.input_gain_db = -3.0;
    options.render.normalize = true;
    options.output_gain_db = 2.0;
    options.record = true;
    options.ring_seconds = 0.05;  // small, so that the ring also runs full and drops
    LiveEngine engine(read_nam_file(model), options);
    std::vector<float> in(200), out(200), dry, wet;
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = 0.5f * std::sin(0.03f * static_cast<float>(i));
    std::vector<BlockReport> reports(4096);
    long allocations = 0;
    std::size_t swaps = 0;
    for (int round = 0; round < 40; ++round) {
        const long before = g_allocations.load();
        for (int block = 0; block < 50; ++block) {
            const std::size_t n = block % 5 == 4 ? 1 + (block * 37) % 200 : 64;
            engine.process(std::span<const float>(in).first(n), std::span<float>(out).first(n), block == 3);
        }
        allocations += g_allocations.load() - before;
        if (round % 7 == 3) {
            engine.collect_retired();
            const std::filesystem::path next = others.empty() ? model : others[swaps % others.size()];
            EXPECT_TRUE(engine.offer(engine.prepare_model(read_nam_file(next)))) << next;
            ++swaps;
        }
        engine.drain_reports(reports);
        if (round % 2 == 0) engine.drain_recording(dry, wet);
    }
    EXPECT_FALSE(dry.empty());
    return allocations;
}

class LiveAllocation : public ::testing::TestWithParam<const char*> {};

TEST_P(LiveAllocation, TheLiveCallbackAllocatesNothing) {
    EXPECT_EQ(allocations_while_playing_live(GetParam()), 0) << "allocations in the live callback";
}

INSTANTIATE_TEST_SUITE_P(Committed, LiveAllocation,
                         ::testing::Values(FORGE_NAM_BUNDLED "/forge-sim-amp.nam",
                                           FORGE_NAM_TEST_DATA "/core/wavenet_film.nam",
                                           FORGE_NAM_TEST_DATA "/core/lstm_2x3.nam",
                                           FORGE_NAM_TEST_DATA "/core/container.nam"),
                         [](const auto& info) { return "model_" + std::to_string(info.index); });

// A 48 kHz model on a 44.1 kHz device: the resamplers (libsamplerate's src_process) too.
TEST(LiveAllocation, ResamplingAllocatesNothing) {
    EXPECT_EQ(allocations_while_playing_live(FORGE_NAM_BUNDLED "/forge-sim-amp.nam", 44100.0), 0);
}

// Switching to other model files while playing (`load PATH`): other architectures and sizes,
// each prewarmed off the callback; the swaps themselves allocate nothing in the callback.
TEST(LiveAllocation, SwitchingToOtherModelFilesAllocatesNothing) {
    EXPECT_EQ(allocations_while_playing_live(FORGE_NAM_BUNDLED "/forge-sim-amp.nam", 48000.0,
                                             {FORGE_NAM_TEST_DATA "/core/lstm_2x3.nam",
                                              FORGE_NAM_TEST_DATA "/core/forge_nano.nam",
                                              FORGE_NAM_TEST_DATA "/core/wavenet_film.nam",
                                              FORGE_NAM_TEST_DATA "/core/container.nam",
                                              FORGE_NAM_TEST_DATA "/core/linear_fft.nam"}),
              0);
}

TEST(EngineAllocation, CounterSeesAllocations) {
    const long before = g_allocations.load();
    auto p = std::make_unique<std::vector<int>>(10);
    EXPECT_GE(g_allocations.load() - before, 2);
}

}  // namespace
}  // namespace forge::nam
