// Speculative decoding (models/llm/speculator.h, models/llm/lookup_drafter.h): the KV cache
// rolled back to a position gives the bits of a fresh evaluation; n-gram lookup proposes what
// followed the longest recent match; greedy decoding gives the same tokens with and without
// speculation on several families and weight types (the continuation itself as the lookup
// file: nearly every guess kept; a file with nothing in common: none); sampling gives the same
// tokens seed for seed, and a chi-square test over many seeds compares the distributions; the
// scheduler gives the same tokens batched and alone. A draft model (models/llm/draft_model.h):
// the same with its guesses, a golden drafted by its own Q8_0 twin and by another model of the
// vocabulary; its cache rolled back in step; a vocabulary that differs refused.
#include "models/llm/draft_model.h"
#include "models/llm/lookup_drafter.h"
#include "models/llm/scheduler.h"
#include "models/llm/sequence_generator.h"
#include "models/llm/session.h"
#include "models/llm/speculator.h"
#include "test/models/llm/golden.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>

namespace forge::llm {
namespace {

using infer::KvType;

std::vector<std::int32_t> concat(std::vector<std::int32_t> a, const std::vector<std::int32_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// --- KV rollback ---------------------------------------------------------------------------

// Every row's logits of `tokens` evaluated after what the session holds.
std::vector<float> eval_all(Session& session, std::span<const std::int32_t> tokens, std::size_t n_vocab) {
    std::vector<float> logits(tokens.size() * n_vocab);
    session.eval(tokens, logits);
    return logits;
}

// A q8_0 cache needs heads of a multiple of 32: the goldens' head32 model.
const char* model_for(KvType kv) { return kv == KvType::Q8_0 ? "qwen3-q8_0-head32.gguf" : "qwen3-f32.gguf"; }

TEST(KvRollback, TruncatedThenContinuedEqualsAFreshEvaluationBitForBit) {
    const std::vector<std::int32_t> a = {72, 101, 108, 108, 111, 44, 256, 300};
    const std::vector<std::int32_t> b = {350, 400, 450, 500, 12, 9};
    const std::vector<std::int32_t> c = {33, 261, 270};
    for (const KvType kv : {KvType::F32, KvType::F16, KvType::Q8_0}) {
        SCOPED_TRACE(static_cast<int>(kv));
        const Model model = Model::load(test::golden_path(model_for(kv)));
        const auto n_vocab = static_cast<std::size_t>(model.hparams().n_vocab);
        Session rolled(model, {64, 512, kv});
        rolled.eval(concat(a, b));
        rolled.truncate(static_cast<std::int64_t>(a.size()));
        EXPECT_EQ(rolled.n_past(), static_cast<std::int64_t>(a.size()));
        const std::vector<float> after_rollback = eval_all(rolled, c, n_vocab);

        Session fresh(model, {64, 512, kv});
        const std::vector<float> all = eval_all(fresh, concat(a, c), n_vocab);
        const std::vector<float> expected(all.end() - static_cast<std::ptrdiff_t>(c.size() * n_vocab), all.end());
        ASSERT_EQ(after_rollback.size(), expected.size());
        EXPECT_EQ(std::memcmp(after_rollback.data(), expected.data(), expected.size() * sizeof(float)), 0);
    }
}

// --- Lookup ----------------------------------------------------------------------------------

std::vector<std::int32_t> propose(LookupDrafter& drafter, std::size_t max) {
    std::vector<std::int32_t> draft;
    drafter.propose(max, draft);
    return draft;
}

TEST(LookupDrafter, ProposesWhatFollowedTheLongestMostRecentMatch) {
    LookupDrafter drafter({2, 4, nullptr}, 64);
    // "5 6" occurs twice, "4 5 6" once (followed by 9 9): the longer match wins.
    drafter.reset(std::vector<std::int32_t>{4, 5, 6, 9, 9, 1, 5, 6, 7, 7, 8, 4, 5, 6});
    EXPECT_EQ(propose(drafter, 3), (std::vector<std::int32_t>{9, 9, 1}));
    // Equally long: the most recent one.
    drafter.reset(std::vector<std::int32_t>{1, 2, 3, 7, 1, 2, 3, 8, 1, 2, 3});
    EXPECT_EQ(propose(drafter, 1), (std::vector<std::int32_t>{8}));
    // The continuation may run up to the text's last token.
    drafter.reset(std::vector<std::int32_t>{1, 1, 1, 1});
    EXPECT_EQ(propose(drafter, 8), (std::vector<std::int32_t>{1}));
}

TEST(LookupDrafter, NeedsAtLeastTheShortestNgram) {
    LookupDrafter drafter({2, 4, nullptr}, 64);
    drafter.reset(std::vector<std::int32_t>{1, 2, 3, 9, 4, 3});  // only "3" repeats
    EXPECT_TRUE(propose(drafter, 4).empty());
    drafter.push(9);  // "3 9" now repeats
    EXPECT_EQ(propose(drafter, 4), (std::vector<std::int32_t>{4, 3, 9}));
}

TEST(LookupDrafter, SearchesTheReferenceText) {
    const auto reference = std::make_shared<const std::vector<std::int32_t>>(std::vector<std::int32_t>{10, 11, 12, 13, 14, 15});
    LookupDrafter drafter({2, 4, reference}, 64);
    drafter.reset(std::vector<std::int32_t>{1, 2, 11, 12});
    EXPECT_EQ(propose(drafter, 2), (std::vector<std::int32_t>{13, 14}));
    EXPECT_EQ(propose(drafter, 10), (std::vector<std::int32_t>{13, 14, 15}));  // up to its end
    drafter.reset(std::vector<std::int32_t>{1, 2, 3});
    EXPECT_TRUE(propose(drafter, 4).empty());
}

TEST(LookupDrafter, FollowsItsPlaceInTheReferenceThroughARepetition) {
    const auto reference = std::make_shared<const std::vector<std::int32_t>>(std::vector<std::int32_t>{1, 5, 5, 5, 5, 5, 9});
    LookupDrafter drafter({2, 4, reference}, 64);
    drafter.reset(std::vector<std::int32_t>{7, 1, 5, 5});
    EXPECT_EQ(propose(drafter, 2), (std::vector<std::int32_t>{5, 5}));
    drafter.push(5);
    drafter.push(5);
    // "5 5 5 5" also ends one token later in the reference (before the 9), but the text is
    // where the last guess led: two more tokens into the run.
    EXPECT_EQ(propose(drafter, 4), (std::vector<std::int32_t>{5, 9}));
}

TEST(LookupDrafter, EntersARunOfTheReferenceAsDeepAsTheTextIs) {
    // The answer starts with the reference's run of 7s: two of them so far (the token before is
    // the prompt's), so four more follow, then 9. Every place in the run matches "7 7" equally;
    // the most recent would guess the run over ({9}), the first one guesses what is coming.
    const auto reference = std::make_shared<const std::vector<std::int32_t>>(std::vector<std::int32_t>{7, 7, 7, 7, 7, 7, 9, 3});
    LookupDrafter drafter({2, 4, reference}, 64);
    drafter.reset(std::vector<std::int32_t>{1, 7, 7});
    EXPECT_EQ(propose(drafter, 8), (std::vector<std::int32_t>{7, 7, 7, 7, 9, 3}));
}

TEST(Speculator, RejectsABadOption) {
    SpeculationOptions o;
    o.mode = SpecMode::Lookup;
    o.draft_max = 0;
    EXPECT_THROW(Speculator(o, 64), Error);
    EXPECT_THROW(spec_mode_from_name("ngram"), Error);
    EXPECT_EQ(spec_mode_from_name("lookup"), SpecMode::Lookup);
}

// --- Greedy identity -------------------------------------------------------------------------

struct Generated {
    std::vector<std::int32_t> tokens;
    std::string text;
    GenerationStats stats;
};

SpeculationOptions lookup(std::shared_ptr<const std::vector<std::int32_t>> reference = nullptr, std::int64_t draft_max = 8) {
    SpeculationOptions o;
    o.mode = SpecMode::Lookup;
    o.draft_max = draft_max;
    o.lookup.reference = std::move(reference);
    o.weigh_cost = false;  // drafts that depend only on the tokens
    return o;
}

Generated generate(const Model& model, const Tokenizer& tokenizer, const std::vector<std::int32_t>& prompt,
             const GenerationOptions& options, const SpeculationOptions& speculation, KvType kv = KvType::F32) {
    SequenceGenerator generator(model, tokenizer, {128, 512, kv}, speculation);
    Sampler sampler(options.sampling, model.hparams().n_vocab);
    Generated run;
    run.stats = generator.generate(prompt, options, sampler, [&](std::string_view piece) {
        run.text += piece;
        return true;
    });
    run.tokens = generator.answer();
    // What the cache holds is the prompt and the answer: rolled back past every rejected guess.
    EXPECT_EQ(generator.session().n_past(), static_cast<std::int64_t>(generator.cached().size()));
    return run;
}

// Greedy, end-of-generation tokens banned (logit_bias): a random model otherwise may stop
// after a few tokens.
GenerationOptions greedy(std::int64_t max_tokens, const Tokenizer& tokenizer) {
    GenerationOptions o;
    o.sampling.temperature = 0;
    o.max_tokens = max_tokens;
    for (std::int32_t id = 0; id < tokenizer.n_vocab(); ++id) {
        if (tokenizer.is_end_of_generation(id)) o.logit_bias.emplace_back(id, -std::numeric_limits<float>::infinity());
    }
    return o;
}

class GreedyIdentity : public ::testing::TestWithParam<const char*> {};

TEST_P(GreedyIdentity, SpeculationGivesTheSameTokens) {
    const test::Golden golden = test::load_golden(GetParam());
    const Model model = Model::load(golden.model_path);
    const PromptFormat format(model);
    const std::vector<std::int32_t>& prompt = golden.prompt;
    const Generated plain = generate(model, format.tokenizer(), prompt, greedy(64, format.tokenizer()), {});
    ASSERT_EQ(plain.tokens.size(), 64u);
    EXPECT_EQ(plain.stats.drafted_tokens, 0);

    // The model's own text (random models repeat themselves): whatever lookup finds.
    const Generated own = generate(model, format.tokenizer(), prompt, greedy(64, format.tokenizer()), lookup());
    EXPECT_EQ(own.tokens, plain.tokens);
    EXPECT_EQ(own.text, plain.text);

    // The continuation itself as the reference: most guesses are kept (measured 77% for
    // qwen3moe-q4_k_m, 85% to 100% for the others; where the model repeats itself, the text's
    // own match is tried first and may be wrong).
    const auto continuation = std::make_shared<const std::vector<std::int32_t>>(plain.tokens);
    const Generated quoted = generate(model, format.tokenizer(), prompt, greedy(64, format.tokenizer()), lookup(continuation, 16));
    EXPECT_EQ(quoted.tokens, plain.tokens);
    EXPECT_EQ(quoted.text, plain.text);
    EXPECT_GE(quoted.stats.drafted_tokens, 50);
    EXPECT_GE(quoted.stats.accepted_tokens * 10, quoted.stats.drafted_tokens * 7);

    // Drafting paused by measured cost: when it drafts depends on the clock, never the tokens.
    SpeculationOptions weighed = lookup(continuation, 16);
    weighed.weigh_cost = true;
    EXPECT_EQ(generate(model, format.tokenizer(), prompt, greedy(64, format.tokenizer()), weighed).tokens, plain.tokens);

    // A reference with nothing in common: nothing to guess, the same tokens.
    std::vector<std::int32_t> unrelated(200);
    for (std::size_t i = 0; i < unrelated.size(); ++i) unrelated[i] = static_cast<std::int32_t>((i * 37 + 5) % 500);
    const Generated none = generate(model, format.tokenizer(), prompt, greedy(64, format.tokenizer()),
                              lookup(std::make_shared<const std::vector<std::int32_t>>(unrelated)));
    EXPECT_EQ(none.tokens, plain.tokens);
}

// --- Draft model -------------------------------------------------------------------------------

SpeculationOptions drafted_by(const std::string& golden_file, std::int64_t draft_max = 4) {
    SpeculationOptions o;
    o.mode = SpecMode::Draft;
    o.draft_max = draft_max;
    o.draft_model = DraftModel::load(test::golden_path(golden_file));
    o.weigh_cost = false;
    return o;
}

struct DraftPair {
    const char* target;
    const char* draft;
};

class DraftGreedyIdentity : public ::testing::TestWithParam<DraftPair> {};

TEST_P(DraftGreedyIdentity, TheDraftModelsGuessesGiveTheSameTokens) {
    const test::Golden golden = test::load_golden(GetParam().target);
    const Model model = Model::load(golden.model_path);
    const PromptFormat format(model);
    const Generated plain = generate(model, format.tokenizer(), golden.prompt, greedy(64, format.tokenizer()), {});
    ASSERT_EQ(plain.tokens.size(), 64u);
    const Generated spec =
        generate(model, format.tokenizer(), golden.prompt, greedy(64, format.tokenizer()), drafted_by(GetParam().draft));
    EXPECT_EQ(spec.tokens, plain.tokens);
    EXPECT_EQ(spec.text, plain.text);
    EXPECT_GT(spec.stats.drafted_tokens, 0);
    // (Two random models of one vocabulary agree on nothing: llama-f32 drafting qwen3-f32 has
    // every guess rejected, and the pauses keep that cheap.)
}

INSTANTIATE_TEST_SUITE_P(Pairs, DraftGreedyIdentity,
                         ::testing::Values(DraftPair{"qwen3-f32", "qwen3-q8_0.gguf"},   // its own lower-bit file
                                           DraftPair{"llama-f32", "llama-q8_0.gguf"},
                                           DraftPair{"qwen3-f32", "llama-f32.gguf"}));  // another model, same vocabulary

TEST(DraftModel, ItsOwnTwinGuessesMostTokens) {
    const test::Golden golden = test::load_golden("qwen3-f32");
    const Model model = Model::load(golden.model_path);
    const PromptFormat format(model);
    const Generated spec =
        generate(model, format.tokenizer(), golden.prompt, greedy(64, format.tokenizer()), drafted_by("qwen3-q8_0.gguf", 8));
    // Measured: 68.6% (48 of 70 guesses kept, --draft-max 8).
    EXPECT_GE(spec.stats.accepted_tokens * 10, spec.stats.drafted_tokens * 5);
}

TEST(DraftModel, AnotherVocabularyIsRefusedNamingTheFirstDifference) {
    const Model model = Model::load(test::golden_path("llama-f32.gguf"));
    const PromptFormat format(model);
    try {
        SequenceGenerator generator(model, format.tokenizer(), {128, 512, KvType::F32}, drafted_by("llama-q8_0-other-vocab.gguf"));
        FAIL() << "no error";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("llama-q8_0-other-vocab.gguf"), std::string::npos) << message;
        EXPECT_NE(message.find("token 300 is '<other>' in the draft"), std::string::npos) << message;
    }
    SchedulerOptions options;
    options.n_slots = 1;
    options.n_ctx = 64;
    options.speculation = drafted_by("llama-q8_0-other-vocab.gguf");
    EXPECT_THROW(Scheduler(model, format.tokenizer(), options), Error);
    options.speculation.draft_model = nullptr;
    EXPECT_THROW(Scheduler(model, format.tokenizer(), options), Error);  // --spec draft without a model
}

// What a drafter proposes after `text`, greedy.
std::vector<std::int32_t> proposed(ModelDrafter& drafter, std::size_t max) {
    std::vector<std::int32_t> draft;
    drafter.propose(max, draft);
    return draft;
}

TEST(ModelDrafter, GuessesTheDraftModelsGreedyTextAndRollsBackPastARejection) {
    const test::Golden golden = test::load_golden("qwen3-q8_0");
    const auto draft = DraftModel::load(golden.model_path);
    const Generated own = generate(draft->model, draft->tokenizer, golden.prompt, greedy(6, draft->tokenizer), {});
    SamplerOptions greedy_sampling;
    greedy_sampling.temperature = 0;
    ModelDrafter drafter(draft, 128, 0.0f);
    drafter.reset(golden.prompt, greedy_sampling);
    const std::vector<std::int32_t> guesses = proposed(drafter, 4);
    EXPECT_EQ(guesses, std::vector<std::int32_t>(own.tokens.begin(), own.tokens.begin() + 4));

    // The target kept the first guess, then chose another token: the draft's cache (holding
    // three guesses) goes back to the first and continues from the target's token, as a fresh
    // drafter over the same text would.
    const std::int32_t other = guesses[1] == 7 ? 8 : 7;
    drafter.push(guesses[0]);
    drafter.push(other);
    const std::vector<std::int32_t> text = concat(golden.prompt, {guesses[0], other});
    ModelDrafter fresh(draft, 128, 0.0f);
    fresh.reset(text, greedy_sampling);
    EXPECT_EQ(proposed(drafter, 5), proposed(fresh, 5));

    // --draft-min-p 1: no random model is that sure of anything.
    ModelDrafter unsure(draft, 128, 1.0f);
    unsure.reset(golden.prompt, greedy_sampling);
    EXPECT_TRUE(proposed(unsure, 4).empty());
}

INSTANTIATE_TEST_SUITE_P(Goldens, GreedyIdentity,
                         ::testing::Values("qwen3-f32", "qwen3-q8_0", "qwen3-f16", "llama-f32", "llama-q4_k", "qwen2-q4_0", "qwen3moe-q8_0",
                                           "qwen3moe-q4_k_m", "smollm3-q8_0", "phi3-f32"));

TEST(GreedyIdentity, HoldsForEveryKvCacheType) {
    const test::Golden golden = test::load_golden("qwen3-q8_0");
    for (const KvType kv : {KvType::F16, KvType::Q8_0}) {
        SCOPED_TRACE(static_cast<int>(kv));
        const Model model = Model::load(test::golden_path(model_for(kv)));
        const PromptFormat format(model);
        const Generated plain = generate(model, format.tokenizer(), golden.prompt, greedy(48, format.tokenizer()), {}, kv);
        ASSERT_EQ(plain.tokens.size(), 48u);
        const auto continuation = std::make_shared<const std::vector<std::int32_t>>(plain.tokens);
        const Generated quoted =
            generate(model, format.tokenizer(), golden.prompt, greedy(48, format.tokenizer()), lookup(continuation), kv);
        EXPECT_EQ(quoted.tokens, plain.tokens);
        EXPECT_GT(quoted.stats.accepted_tokens, 20);
    }
}

// --- Sampling --------------------------------------------------------------------------------

GenerationOptions sampled(std::int64_t max_tokens, std::uint64_t seed) {
    GenerationOptions o;
    o.sampling.temperature = 1.0f;
    o.sampling.top_k = 3;
    o.sampling.top_p = 1.0f;
    o.sampling.min_p = 0.0f;
    o.sampling.seed = seed;
    o.max_tokens = max_tokens;
    return o;
}

struct SamplingFixture {
    test::Golden golden = test::load_golden("qwen3-f32");
    Model model = Model::load(golden.model_path);
    PromptFormat format{model};
    // Guesses that are sometimes right: the prompt's tail followed by each of the 3 most likely
    // tokens' continuations, as seeds 1000.. sampled them.
    std::shared_ptr<const std::vector<std::int32_t>> reference = [&] {
        std::vector<std::int32_t> text;
        for (std::uint64_t seed = 1000; seed < 1006; ++seed) {
            text.insert(text.end(), golden.prompt.end() - 3, golden.prompt.end());
            const Generated run = generate(model, format.tokenizer(), golden.prompt, sampled(8, seed), {});
            text.insert(text.end(), run.tokens.begin(), run.tokens.end());
        }
        return std::make_shared<const std::vector<std::int32_t>>(std::move(text));
    }();
};

TEST(SampledSpeculation, GivesTheSameTokensSeedForSeed) {
    SamplingFixture f;
    std::int64_t drafted = 0, accepted = 0;
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
        const Generated plain = generate(f.model, f.format.tokenizer(), f.golden.prompt, sampled(8, seed), {});
        const Generated spec = generate(f.model, f.format.tokenizer(), f.golden.prompt, sampled(8, seed), lookup(f.reference));
        EXPECT_EQ(spec.tokens, plain.tokens) << "seed " << seed;
        drafted += spec.stats.drafted_tokens;
        accepted += spec.stats.accepted_tokens;
    }
    // Both branches of the rule ran: guesses kept and guesses rejected.
    EXPECT_GT(accepted, 0);
    EXPECT_LT(accepted, drafted);
}

// Pearson's chi-square for two samples over the same categories (a 2 x k contingency table),
// categories expected fewer than 5 times pooled into one; returns {statistic, degrees of freedom}.
std::pair<double, int> chi_square(const std::map<std::vector<std::int32_t>, int>& a,
                                  const std::map<std::vector<std::int32_t>, int>& b, int n) {
    std::map<std::vector<std::int32_t>, std::pair<int, int>> table;
    for (const auto& [key, count] : a) table[key].first += count;
    for (const auto& [key, count] : b) table[key].second += count;
    std::vector<std::pair<int, int>> cells;
    std::pair<int, int> pooled{0, 0};
    for (const auto& [key, counts] : table) {
        if ((counts.first + counts.second) / 2.0 < 5.0) {
            pooled.first += counts.first;
            pooled.second += counts.second;
        } else {
            cells.push_back(counts);
        }
    }
    if (pooled.first + pooled.second > 0) cells.push_back(pooled);
    double statistic = 0.0;
    for (const auto& [x, y] : cells) {
        const double expected = (x + y) / 2.0;  // both samples have n draws
        statistic += (x - expected) * (x - expected) / expected + (y - expected) * (y - expected) / expected;
    }
    (void)n;
    return {statistic, static_cast<int>(cells.size()) - 1};
}

// The chi-square critical value at p = 0.001 (Wilson-Hilferty: within 1% for df >= 3).
double critical_value(int df) {
    const double z = 3.0902, k = df;
    const double c = 1.0 - 2.0 / (9.0 * k) + z * std::sqrt(2.0 / (9.0 * k));
    return k * c * c * c;
}

// The first three tokens, plain decoding with seeds 0.. against speculative decoding with
// `speculation` and other seeds 100000..: independent samples of kRuns each, so a wrong
// acceptance rule shows as a difference (chi-square at p = 0.001); some guesses kept, not all.
void expect_target_distribution(const SamplingFixture& f, const SpeculationOptions& speculation) {
    constexpr int kRuns = 1500;
    std::map<std::vector<std::int32_t>, int> plain, spec;
    std::int64_t drafted = 0, accepted = 0;
    for (int i = 0; i < kRuns; ++i) {
        const auto seed = static_cast<std::uint64_t>(i);
        ++plain[generate(f.model, f.format.tokenizer(), f.golden.prompt, sampled(3, seed), {}).tokens];
        const Generated run = generate(f.model, f.format.tokenizer(), f.golden.prompt, sampled(3, seed + 100000), speculation);
        ++spec[run.tokens];
        drafted += run.stats.drafted_tokens;
        accepted += run.stats.accepted_tokens;
    }
    EXPECT_GT(accepted, kRuns / 10);
    EXPECT_LT(accepted, drafted);
    const auto [statistic, df] = chi_square(plain, spec, kRuns);
    ASSERT_GE(df, 3);
    EXPECT_LT(statistic, critical_value(df)) << "df " << df;
}

TEST(SampledSpeculation, HasTheTargetDistribution) {
    SamplingFixture f;
    expect_target_distribution(f, lookup(f.reference));
}

// The test can fail: a rule that keeps the first guess whatever the model draws shifts the
// distribution, and the same statistic sees it.
TEST(SampledSpeculation, TheChiSquareSeesAWrongRule) {
    SamplingFixture f;
    constexpr int kRuns = 1500;
    std::map<std::vector<std::int32_t>, int> plain, wrong;
    for (int i = 0; i < kRuns; ++i) {
        const auto seed = static_cast<std::uint64_t>(i);
        ++plain[generate(f.model, f.format.tokenizer(), f.golden.prompt, sampled(3, seed), {}).tokens];
        // What a drafter-trusting rule outputs: the first token as drawn, then the reference's
        // guess for the second whenever it has one.
        std::vector<std::int32_t> tokens =
            generate(f.model, f.format.tokenizer(), f.golden.prompt, sampled(3, seed + 100000), {}).tokens;
        LookupDrafter drafter(lookup(f.reference).lookup, 128);
        drafter.reset(concat(f.golden.prompt, {tokens[0]}));
        std::vector<std::int32_t> guess;
        drafter.propose(1, guess);
        if (!guess.empty()) tokens[1] = guess[0];
        ++wrong[tokens];
    }
    const auto [statistic, df] = chi_square(plain, wrong, kRuns);
    EXPECT_GT(statistic, critical_value(df)) << "df " << df;
}

// Sampler::sample_against alone, where p and q are known and far apart: a guess d drawn from
// q, then the rule's token, many times; its histogram must fit p (Pearson's goodness of fit,
// p = 0.001), and keeping every guess (a histogram of q) must not.
TEST(SpeculativeSampling, TheRuleGivesTheTargetsDistributionForAnyDraft) {
    const std::vector<double> p = {0.4, 0.25, 0.15, 0.12, 0.08};
    const std::vector<Sampler::Candidate> q = {{0, 0, 0.1f}, {1, 0, 0.5f}, {2, 0, 0.05f}, {3, 0, 0.3f}, {4, 0, 0.05f}};
    std::vector<float> logits;
    for (const double x : p) logits.push_back(static_cast<float>(std::log(x)));
    SamplerOptions options;
    options.temperature = 1.0f;
    options.top_k = 0;
    options.top_p = 1.0f;
    options.min_p = 0.0f;
    Sampler sampler(options, static_cast<std::int64_t>(p.size()));
    std::mt19937_64 draft_rng(99);
    constexpr int kDraws = 20000;
    std::vector<int> rule(p.size()), trusting(p.size());
    int kept = 0;
    for (int i = 0; i < kDraws; ++i) {
        const std::int32_t guess = Sampler::pick(q, Sampler::uniform(draft_rng));
        const std::int32_t token = sampler.sample_against(logits, guess, q);
        ++rule[static_cast<std::size_t>(token)];
        ++trusting[static_cast<std::size_t>(guess)];
        kept += token == guess;
    }
    const auto goodness_of_fit = [&](const std::vector<int>& counts) {
        double statistic = 0.0;
        for (std::size_t i = 0; i < p.size(); ++i) {
            const double expected = p[i] * kDraws;
            statistic += (counts[i] - expected) * (counts[i] - expected) / expected;
        }
        return statistic;
    };
    const int df = static_cast<int>(p.size()) - 1;
    EXPECT_LT(goodness_of_fit(rule), critical_value(df));
    EXPECT_GT(goodness_of_fit(trusting), critical_value(df));
    // Both branches ran: sum min(p, q) = 0.1 + 0.25 + 0.05 + 0.12 + 0.05 = 0.57 of guesses kept.
    EXPECT_NEAR(kept / static_cast<double>(kDraws), 0.57, 0.02);
}

// With a draft model the rule is the general one (accept with min(1, p/q), else draw from
// norm(max(0, p - q))): not the plain decoder's draws, the same distribution. Its Q8_0 and
// Q4_0 twins (q near p: rejections are rarer, as a real pair's are).
TEST(SampledDraftSpeculation, HasTheTargetDistribution) {
    SamplingFixture f;
    for (const char* draft : {"qwen3-q8_0.gguf", "qwen3-q4_0.gguf"}) {
        SCOPED_TRACE(draft);
        const SpeculationOptions speculation = drafted_by(draft, 3);
        expect_target_distribution(f, speculation);
    }
}

// --- Continuous batching ---------------------------------------------------------------------

class ScheduledSpeculation : public ::testing::TestWithParam<SpecMode> {};

TEST_P(ScheduledSpeculation, BatchedEqualsAloneEqualsNoSpeculation) {
    const test::Golden golden = test::load_golden("qwen3-q8_0");
    const Model model = Model::load(golden.model_path);
    const PromptFormat format(model);
    const std::vector<std::vector<std::int32_t>> prompts = {
        golden.prompt, {72, 101, 108, 108, 111, 44, 256, 300, 350}, {33, 261, 270, 280, 290, 33, 261, 270}};
    std::vector<std::vector<std::int32_t>> plain;
    for (const auto& prompt : prompts) plain.push_back(generate(model, format.tokenizer(), prompt, greedy(40, format.tokenizer()), {}).tokens);

    SchedulerOptions options;
    options.n_slots = 3;
    options.n_ctx = 128;
    options.n_batch = 16;
    options.kv_type = KvType::F32;  // as generate() runs
    // The lookup over each slot's text, or each slot's own sequence of the qwen3 Q4_0 twin.
    options.speculation = GetParam() == SpecMode::Lookup ? lookup(nullptr, 6) : drafted_by("qwen3-q4_0.gguf", 6);
    const auto submit_all = [&](Scheduler& scheduler, std::span<const std::vector<std::int32_t>> batch) {
        std::vector<std::shared_ptr<RequestHandle>> handles;
        for (const auto& prompt : batch) handles.push_back(scheduler.submit({prompt, greedy(40, format.tokenizer()), nullptr, {}}));
        scheduler.run_until_idle();
        std::vector<RequestResult> results;
        for (const auto& h : handles) results.push_back(h->wait());
        return results;
    };
    Scheduler batched(model, format.tokenizer(), options);
    const std::vector<RequestResult> together = submit_all(batched, prompts);
    std::int64_t drafted = 0;
    for (std::size_t i = 0; i < prompts.size(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(together[i].tokens, plain[i]);
        Scheduler alone(model, format.tokenizer(), options);
        const std::vector<RequestResult> single = submit_all(alone, std::span(prompts).subspan(i, 1));
        EXPECT_EQ(single[0].tokens, plain[i]);
        EXPECT_EQ(single[0].stats.drafted_tokens, together[i].stats.drafted_tokens);
        EXPECT_EQ(single[0].stats.accepted_tokens, together[i].stats.accepted_tokens);
        drafted += together[i].stats.drafted_tokens;
        // The slot's cache holds its tokens, rolled back past every rejected guess.
        EXPECT_EQ(alone.slot_tokens(single[0].slot), concat(prompts[i], plain[i]));
    }
    EXPECT_GT(drafted, 0);
    EXPECT_EQ(batched.drafted_tokens(), drafted);
}

INSTANTIATE_TEST_SUITE_P(Drafters, ScheduledSpeculation, ::testing::Values(SpecMode::Lookup, SpecMode::Draft));

// Sampled, each slot with its own draft sequence and random streams: batched == alone.
TEST(ScheduledSpeculation, SampledWithADraftModelBatchedEqualsAlone) {
    const test::Golden golden = test::load_golden("qwen3-f32");
    const Model model = Model::load(golden.model_path);
    const PromptFormat format(model);
    const std::vector<std::vector<std::int32_t>> prompts = {golden.prompt, {72, 101, 108, 108, 111, 44, 256, 300, 350}};
    SchedulerOptions options;
    options.n_slots = 2;
    options.n_ctx = 128;
    options.n_batch = 16;
    options.kv_type = KvType::F32;
    options.speculation = drafted_by("qwen3-q8_0.gguf", 4);
    const auto run = [&](std::span<const std::vector<std::int32_t>> batch) {
        Scheduler scheduler(model, format.tokenizer(), options);
        std::vector<std::shared_ptr<RequestHandle>> handles;
        for (const auto& prompt : batch) handles.push_back(scheduler.submit({prompt, sampled(24, prompt.size()), nullptr, {}}));
        scheduler.run_until_idle();
        std::vector<std::vector<std::int32_t>> tokens;
        for (const auto& h : handles) tokens.push_back(h->wait().tokens);
        return tokens;
    };
    const auto together = run(prompts);
    EXPECT_EQ(together[0], run(std::span(prompts).subspan(0, 1))[0]);
    EXPECT_EQ(together[1], run(std::span(prompts).subspan(1, 1))[0]);
}

}  // namespace
}  // namespace forge::llm
