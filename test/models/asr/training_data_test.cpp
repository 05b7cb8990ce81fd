// The training-data pieces of `forge train asr` that do not need the encoder: manifests,
// duration-bucketed batches, padding with masks, SpecAugment masking.
#include "core/error.h"
#include "models/asr/batching.h"
#include "models/asr/manifest.h"
#include "models/asr/spec_augment.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace forge::asr {
namespace {

class ManifestFile : public ::testing::Test {
protected:
    std::filesystem::path write(const std::string& text) {
        std::ofstream(path_) << text;
        return path_;
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    std::filesystem::path dir_ = std::filesystem::temp_directory_path() /
                                 ("forge_manifest_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                  "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::path path_ = (std::filesystem::create_directories(dir_), dir_ / "train.jsonl");
};

TEST_F(ManifestFile, ReadsUtterancesRelativeToTheManifest) {
    const auto u = load_manifest(write(
        "{\"audio\": \"wav/a.wav\", \"text\": \"hello there\", \"duration\": 1.5, \"voice\": \"flite:awb\", \"rate\": 1}\n"
        "\n"
        "{\"audio\": \"/abs/b.wav\", \"text\": \"\", \"duration\": 0.25}\n"));
    ASSERT_EQ(u.size(), 2u);
    EXPECT_EQ(u[0].audio, dir_ / "wav/a.wav");
    EXPECT_EQ(u[0].text, "hello there");
    EXPECT_DOUBLE_EQ(u[0].duration, 1.5);
    EXPECT_EQ(u[0].voice, "flite:awb");
    EXPECT_EQ(u[1].audio, std::filesystem::path("/abs/b.wav"));
    EXPECT_EQ(u[1].voice, "");
}

TEST_F(ManifestFile, ErrorsNameTheLineAndField) {
    auto expect_error = [&](const std::string& text, const std::string& needle) {
        try {
            load_manifest(write(text));
            ADD_FAILURE() << "accepted: " << text;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    const std::string good = "{\"audio\": \"a.wav\", \"text\": \"a\", \"duration\": 1}\n";
    expect_error(good + "{\"audio\": \"b.wav\", \"duration\": 1}\n", "train.jsonl:2: missing \"text\"");
    expect_error(good + good + "{\"audio\": \"b.wav\", \"text\": \"b\", \"duration\": 0}\n",
                 "train.jsonl:3: \"duration\" must be a positive number");
    expect_error("{\"audio\": 3, \"text\": \"a\", \"duration\": 1}\n", "\"audio\" must be a non-empty string");
    expect_error("[1, 2]\n", "train.jsonl:1: expected a JSON object");
    expect_error("{\"audio\": \"a.wav\", \"text\": \n", "train.jsonl:1");
    expect_error("\n\n", "lists no utterances");
    EXPECT_THROW(load_manifest(dir_ / "missing.jsonl"), Error);
}

std::vector<Utterance> utterances(std::initializer_list<double> durations) {
    std::vector<Utterance> out;
    for (const double d : durations) out.push_back({"x.wav", "x", d, ""});
    return out;
}

TEST(DurationBatches, EveryUtteranceOnceWithinTheBudget) {
    const auto u = utterances({1.0, 9.0, 2.0, 2.1, 8.5, 1.1, 4.0, 3.9, 0.5, 12.0, 2.0, 2.05});
    const auto batches = duration_batches(u, 10.0, 7, 0);
    std::multiset<std::size_t> seen;
    for (const auto& batch : batches) {
        double longest = 0.0;
        for (const std::size_t i : batch) longest = std::max(longest, u[i].duration), seen.insert(i);
        // Only the 12 s utterance may exceed the budget, and only alone.
        EXPECT_TRUE(static_cast<double>(batch.size()) * longest <= 10.0 || batch.size() == 1);
    }
    EXPECT_EQ(seen.size(), u.size());
    for (std::size_t i = 0; i < u.size(); ++i) EXPECT_EQ(seen.count(i), 1u) << i;
}

TEST(DurationBatches, GroupsSimilarDurations) {
    // Four short and four long utterances: a 4 s budget holds the short ones together, and no
    // batch mixes the two kinds.
    const auto u = utterances({1.0, 3.0, 0.9, 3.1, 1.0, 2.9, 0.95, 3.0});
    for (const auto& batch : duration_batches(u, 4.0, 1, 0)) {
        std::set<bool> kinds;
        for (const std::size_t i : batch) kinds.insert(u[i].duration > 2.0);
        EXPECT_EQ(kinds.size(), 1u);
    }
}

TEST(DurationBatches, DependOnlyOnSeedAndEpoch) {
    std::vector<Utterance> u;
    for (int i = 0; i < 200; ++i) u.push_back({"x.wav", "x", 1.0 + (i * 37 % 101) / 10.0, ""});
    EXPECT_EQ(duration_batches(u, 30.0, 5, 3), duration_batches(u, 30.0, 5, 3));
    EXPECT_NE(duration_batches(u, 30.0, 5, 3), duration_batches(u, 30.0, 5, 4));
    EXPECT_THROW(duration_batches(u, 0.0, 5, 3), Error);
}

TEST(DurationBatches, SortaGradOrdersBatchesByTheirLongestUtterance) {
    const auto u = utterances({1.0, 9.0, 2.0, 2.1, 8.5, 1.1, 4.0, 3.9, 0.5, 12.0, 2.0, 2.05});
    auto batches = duration_batches(u, 10.0, 7, 0);
    const auto unordered = batches;
    order_by_duration(batches, u);
    const auto longest = [&](const std::vector<std::size_t>& batch) {
        double most = 0.0;
        for (const std::size_t i : batch) most = std::max(most, u[i].duration);
        return most;
    };
    for (std::size_t b = 1; b < batches.size(); ++b) EXPECT_LE(longest(batches[b - 1]), longest(batches[b])) << b;
    EXPECT_NE(std::find(batches.front().begin(), batches.front().end(), 8u), batches.front().end());  // 0.5 s first
    EXPECT_EQ(batches.back(), std::vector<std::size_t>{9});  // the 12 s one, alone, last
    EXPECT_NE(batches, unordered);  // the shuffled order was not sorted already
    EXPECT_EQ(std::multiset(batches.begin(), batches.end()), std::multiset(unordered.begin(), unordered.end()));
}

TEST(PadBatch, PadsFeaturesWithZerosAndMasksThePadding) {
    const Tensor a = Tensor::from({1, 2, 3, 4, 5, 6}, {3, 2}), b = Tensor::from({7, 8}, {1, 2});
    const std::vector<Tensor> items{a, b};
    const PaddedBatch p = pad_batch(items);
    EXPECT_EQ(p.values.shape(), (Shape{2, 3, 2}));
    EXPECT_EQ(p.values.to_vector(), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0}));
    EXPECT_EQ(p.mask.to_vector(), (std::vector<float>{1, 1, 1, 1, 0, 0}));
    EXPECT_EQ(p.lengths, (std::vector<std::int64_t>{3, 1}));
}

TEST(PadBatch, PadsWaveforms) {
    const std::vector<Tensor> items{Tensor::from({0.5f}, {1}), Tensor::from({1, 2}, {2})};
    const PaddedBatch p = pad_batch(items);
    EXPECT_EQ(p.values.shape(), (Shape{2, 2}));
    EXPECT_EQ(p.values.to_vector(), (std::vector<float>{0.5f, 0, 1, 2}));
}

TEST(PadBatch, RejectsMismatchedItems) {
    const std::vector<Tensor> widths{Tensor::zeros({2, 3}), Tensor::zeros({2, 4})};
    EXPECT_THROW(pad_batch(widths), Error);
    const std::vector<Tensor> empty_item{Tensor::zeros({0, 3})};
    EXPECT_THROW(pad_batch(empty_item), Error);
    EXPECT_THROW(pad_batch({}), Error);
}

// The masked positions of one utterance: (frame, feature) pairs set to 0 by spec_augment.
std::set<std::pair<std::int64_t, std::int64_t>> zeros_of(const Tensor& out, std::int64_t b) {
    std::set<std::pair<std::int64_t, std::int64_t>> z;
    const std::int64_t frames = out.size(1), width = out.size(2);
    const auto v = out.to_vector();
    for (std::int64_t t = 0; t < frames; ++t)
        for (std::int64_t f = 0; f < width; ++f)
            if (v[static_cast<std::size_t>((b * frames + t) * width + f)] == 0.0f) z.insert({t, f});
    return z;
}

TEST(SpecAugment, MasksBandsAndSpansInsideTheValidFrames) {
    const std::int64_t frames = 200, width = 80;
    const Tensor x = Tensor::full({2, frames, width}, 1.0f);
    const std::vector<std::int64_t> lengths{200, 120};
    const Tensor y = spec_augment(x, lengths, {.freq_masks = 2, .freq_width = 27, .time_masks = 10, .time_width = 0.05}, 42);
    for (std::int64_t b = 0; b < 2; ++b) {
        const auto z = zeros_of(y, b);
        EXPECT_FALSE(z.empty());
        for (const auto& [t, f] : z) EXPECT_LT(t, lengths[static_cast<std::size_t>(b)]) << "padding masked";
        // Each masked row is either a whole frame (time mask) or a few channels (at most two
        // bands of 27): count the fully masked frames and the channels masked in an unmasked frame.
        std::int64_t full_frames = 0;
        for (std::int64_t t = 0; t < lengths[static_cast<std::size_t>(b)]; ++t) {
            std::int64_t in_frame = 0;
            for (std::int64_t f = 0; f < width; ++f) in_frame += z.count({t, f});
            if (in_frame == width) ++full_frames;
            else EXPECT_LE(in_frame, 54);
        }
        const std::int64_t max_span = std::max<std::int64_t>(1, lengths[static_cast<std::size_t>(b)] / 20);
        EXPECT_LE(full_frames, 10 * max_span);
    }
    // The input is untouched, and the same key gives the same masks.
    EXPECT_EQ(x.to_vector(), Tensor::full({2, frames, width}, 1.0f).to_vector());
    EXPECT_EQ(spec_augment(x, lengths, {}, 42).to_vector(), y.to_vector());
    EXPECT_NE(spec_augment(x, lengths, {}, 43).to_vector(), y.to_vector());
}

TEST(SpecAugment, NoMasksIsTheIdentity) {
    const Tensor x = Tensor::full({1, 10, 4}, 2.0f);
    const std::vector<std::int64_t> lengths{10};
    EXPECT_EQ(spec_augment(x, lengths, {.freq_masks = 0, .time_masks = 0}, 1).to_vector(), x.to_vector());
}

TEST(SpecAugment, RejectsBadLengths) {
    const Tensor x = Tensor::zeros({2, 10, 4});
    const std::vector<std::int64_t> one{10}, too_long{10, 11};
    EXPECT_THROW(spec_augment(x, one, {}, 1), Error);
    EXPECT_THROW(spec_augment(x, too_long, {}, 1), Error);
}

}  // namespace
}  // namespace forge::asr
