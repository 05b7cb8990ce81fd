// serve's many-models policy without real models: which loaded models make room for another
// (residency_policy.h), and the registry's loading, pinning and unloading (model_registry.h)
// with a stand-in for a loaded model.
#include "app/serve/model_registry.h"
#include "app/serve/residency_policy.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace forge::app::serve {
namespace {

using Ids = std::vector<std::string>;

TEST(ResidencyPolicy, RoomAlreadyThereUnloadsNothing) {
    const std::vector<Resident> resident = {{"a", 10, 1, false}};
    EXPECT_EQ(models_to_unload(resident, 10, {2, 0}), Ids{});
    EXPECT_EQ(models_to_unload(resident, 10, {0, 0}), Ids{});  // no limits
}

TEST(ResidencyPolicy, CountLimitUnloadsLeastRecentlyUsedFirst) {
    const std::vector<Resident> resident = {{"a", 1, 5, false}, {"b", 1, 2, false}, {"c", 1, 9, false}};
    EXPECT_EQ(models_to_unload(resident, 1, {3, 0}), Ids{"b"});
    EXPECT_EQ(models_to_unload(resident, 1, {2, 0}), (Ids{"b", "a"}));
    EXPECT_EQ(models_to_unload(resident, 1, {1, 0}), (Ids{"b", "a", "c"}));
}

TEST(ResidencyPolicy, ModelsInUseAreSkipped) {
    const std::vector<Resident> resident = {{"old", 1, 1, true}, {"newer", 1, 2, false}};
    EXPECT_EQ(models_to_unload(resident, 1, {2, 0}), Ids{"newer"});
}

TEST(ResidencyPolicy, NoRoomWhenOnlyModelsInUseCouldMakeIt) {
    const std::vector<Resident> resident = {{"a", 1, 1, true}, {"b", 1, 2, true}};
    EXPECT_EQ(models_to_unload(resident, 1, {2, 0}), std::nullopt);
    EXPECT_EQ(models_to_unload(resident, 1, {3, 0}), Ids{});
}

TEST(ResidencyPolicy, MemoryBudgetUnloadsUntilTheBytesFit) {
    // 60 + 30 + 20 loaded, 50 more asked, budget 100: 60 (the oldest) goes, which is enough.
    const std::vector<Resident> resident = {{"big", 60, 1, false}, {"mid", 30, 2, false}, {"small", 20, 3, false}};
    EXPECT_EQ(models_to_unload(resident, 50, {0, 100}), Ids{"big"});
    // 90 more: big and mid both go (20 + 90 = 110 > 100 even then: small too).
    EXPECT_EQ(models_to_unload(resident, 90, {0, 100}), (Ids{"big", "mid", "small"}));
    // With small in use, 90 more cannot fit.
    const std::vector<Resident> pinned = {{"big", 60, 1, false}, {"mid", 30, 2, false}, {"small", 20, 3, true}};
    EXPECT_EQ(models_to_unload(pinned, 90, {0, 100}), std::nullopt);
}

TEST(ResidencyPolicy, BothLimitsHold) {
    const std::vector<Resident> resident = {{"a", 10, 1, false}, {"b", 90, 2, false}};
    // The count allows 3, the bytes do not: a (10) is not enough, b goes too.
    EXPECT_EQ(models_to_unload(resident, 20, {3, 100}), (Ids{"a", "b"}));
}

// A stand-in for a loaded model that counts how many exist.
struct FakeModel {
    explicit FakeModel(std::string id, std::atomic<int>& alive) : id(std::move(id)), alive(alive) { ++alive; }
    ~FakeModel() { --alive; }
    std::string id;
    std::atomic<int>& alive;
};

std::vector<ModelSource> sources(std::initializer_list<std::pair<const char*, std::uint64_t>> models) {
    std::vector<ModelSource> out;
    for (const auto& [id, bytes] : models) out.push_back({id, std::string(id) + ".gguf", bytes});
    return out;
}

struct Counting {
    std::atomic<int> alive{0}, loads{0};
    std::chrono::milliseconds delay{0};
    ModelRegistry<FakeModel>::Loader loader() {
        return [this](const ModelSource& s) {
            ++loads;
            std::this_thread::sleep_for(delay);
            if (s.id == "broken") throw Error("not a GGUF file");
            return std::make_shared<FakeModel>(s.id, alive);
        };
    }
};

ModelState state_of(const ModelRegistry<FakeModel>& registry, const std::string& id) {
    for (const auto& s : registry.statuses()) {
        if (s.source.id == id) return s.state;
    }
    return ModelState::Unloaded;
}

TEST(ModelRegistry, FindsByIdFileNameOrStem) {
    Counting c;
    ModelRegistry<FakeModel> registry({{"a.gguf", "/m/a.gguf", 1}, {"b", "/d/b.gguf", 1}}, {}, c.loader());
    EXPECT_EQ(registry.find("a.gguf"), 0);
    EXPECT_EQ(registry.find("a"), 0);
    EXPECT_EQ(registry.find("b.gguf"), 1);
    EXPECT_EQ(registry.find("c"), -1);
}

TEST(ModelRegistry, LoadsOnFirstUseAndUnloadsTheLeastRecentlyUsedIdleOne) {
    Counting c;
    ModelRegistry<FakeModel> registry(sources({{"a", 1}, {"b", 1}, {"c", 1}}), {2, 0}, c.loader());
    EXPECT_EQ(c.alive, 0);
    registry.acquire(0);
    registry.acquire(1);
    registry.acquire(0);  // a is now more recent than b
    EXPECT_EQ(c.loads, 2);
    registry.acquire(2);  // b goes
    EXPECT_EQ(c.alive, 2);
    EXPECT_EQ(state_of(registry, "a"), ModelState::Loaded);
    EXPECT_EQ(state_of(registry, "b"), ModelState::Unloaded);
    EXPECT_EQ(state_of(registry, "c"), ModelState::Loaded);
}

TEST(ModelRegistry, AModelInUseIsNeverUnloaded) {
    Counting c;
    ModelRegistry<FakeModel> registry(sources({{"a", 1}, {"b", 1}}), {1, 0}, c.loader());
    const auto lease = registry.acquire(0);
    try {
        registry.acquire(1);
        FAIL() << "b loaded while a, in use, filled the only place";
    } catch (const ApiError& e) {
        EXPECT_EQ(e.status(), 503);
        EXPECT_EQ(e.code(), "models_busy");
    }
    EXPECT_EQ(lease->id, "a");
    EXPECT_EQ(state_of(registry, "a"), ModelState::Loaded);
}

TEST(ModelRegistry, ACopyOfALeasePinsUntilTheLastCopyEnds) {
    Counting c;
    ModelRegistry<FakeModel> registry(sources({{"a", 1}, {"b", 1}}), {1, 0}, c.loader());
    auto lease = registry.acquire(0);
    auto copy = lease;  // as a stream's writer holds it
    lease.reset();
    EXPECT_THROW(registry.acquire(1), ApiError);
    copy.reset();
    EXPECT_EQ(registry.acquire(1)->id, "b");
}

TEST(ModelRegistry, ListingsDoNotPin) {
    Counting c;
    ModelRegistry<FakeModel> registry(sources({{"a", 1}, {"b", 1}}), {1, 0}, c.loader());
    registry.acquire(0);
    const auto statuses = registry.statuses();  // held, as /v1/models holds them while answering
    const auto loaded = registry.loaded();      // as /metrics does
    ASSERT_TRUE(statuses[0].model);
    EXPECT_EQ(registry.acquire(1)->id, "b");
    EXPECT_EQ(state_of(registry, "a"), ModelState::Unloaded);
}

TEST(ModelRegistry, AReleasedModelMakesRoomAndIsFreed) {
    Counting c;
    ModelRegistry<FakeModel> registry(sources({{"a", 1}, {"b", 1}}), {1, 0}, c.loader());
    { const auto lease = registry.acquire(0); }
    registry.acquire(1);
    EXPECT_EQ(c.alive, 1);  // a was destroyed before b loaded, not kept
}

TEST(ModelRegistry, ConcurrentFirstRequestsLoadOnce) {
    Counting c;
    c.delay = std::chrono::milliseconds(100);
    ModelRegistry<FakeModel> registry(sources({{"a", 1}}), {}, c.loader());
    std::vector<std::thread> threads;
    std::vector<std::shared_ptr<FakeModel>> got(8);
    for (std::size_t i = 0; i < got.size(); ++i) threads.emplace_back([&, i] { got[i] = registry.acquire(0); });
    for (auto& t : threads) t.join();
    EXPECT_EQ(c.loads, 1);
    for (const auto& m : got) EXPECT_EQ(m.get(), got[0].get());
}

TEST(ModelRegistry, WaitersShareAFailedLoadAndALaterRequestRetries) {
    Counting c;
    c.delay = std::chrono::milliseconds(100);
    ModelRegistry<FakeModel> registry(sources({{"broken", 1}}), {}, c.loader());
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) {
        threads.emplace_back([&] {
            try {
                registry.acquire(0);
            } catch (const ApiError& e) {
                if (e.status() == 500 && e.code() == "model_load_failed") ++failures;
            }
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(failures, 4);
    EXPECT_EQ(c.loads, 1);
    EXPECT_FALSE(registry.statuses()[0].failure.empty());
    EXPECT_THROW(registry.acquire(0), ApiError);
    EXPECT_EQ(c.loads, 2);
}

TEST(ModelRegistry, CloseHandsBackTheLoadedModelsAndRefusesMore) {
    Counting c;
    ModelRegistry<FakeModel> registry(sources({{"a", 1}, {"b", 1}}), {}, c.loader());
    registry.acquire(0);
    const auto loaded = registry.close();
    ASSERT_EQ(loaded.size(), 1u);
    EXPECT_EQ(loaded[0]->id, "a");
    EXPECT_THROW(registry.acquire(1), ApiError);
}

TEST(ModelSources, FolderModelsAreNamedByStemFilesByFileName) {
    const auto dir = std::filesystem::temp_directory_path() / "forge_serve_registry_test";
    std::filesystem::create_directories(dir);
    for (const char* name : {"b.gguf", "a.gguf", "notes.txt"}) std::ofstream(dir / name) << "1234";
    std::ofstream(dir.parent_path() / "forge_serve_registry_c.gguf") << "12";
    const auto found = find_model_sources({(dir.parent_path() / "forge_serve_registry_c.gguf").string()}, dir.string(), "");
    ASSERT_EQ(found.size(), 3u);
    EXPECT_EQ(found[0].id, "forge_serve_registry_c.gguf");
    EXPECT_EQ(found[0].bytes, 2u);
    EXPECT_EQ(found[1].id, "a");
    EXPECT_EQ(found[2].id, "b");
    EXPECT_EQ(found[2].bytes, 4u);
    EXPECT_THROW(find_model_sources({}, dir.string(), "alias"), Error);  // --alias with many
    EXPECT_THROW(find_model_sources({(dir / "a.gguf").string()}, dir.string(), ""), Error);  // a twice
    EXPECT_THROW(find_model_sources({}, (dir / "none").string(), ""), Error);
    std::filesystem::remove_all(dir);
    std::filesystem::remove(dir.parent_path() / "forge_serve_registry_c.gguf");
}

}  // namespace
}  // namespace forge::app::serve
