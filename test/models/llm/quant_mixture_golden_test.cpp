// forge's quantization policy (models/llm/quant_mixture.h) against llama.cpp's own
// llama_model_quantize: for three models and every file type forge quantizes to, plain and
// --pure, each tensor gets the type llama.cpp gave it (test/data/quant/mixture_golden.json,
// made by tools/make_mixture_golden.py; llama.cpp's output read back by ggml's GGUF reader).
#include "models/llm/quant_mixture.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace forge::llm {
namespace {

const nlohmann::json& golden() {
    static const nlohmann::json doc = [] {
        std::ifstream in(std::string(FORGE_TEST_DATA_DIR) + "/quant/mixture_golden.json");
        if (!in) throw std::runtime_error("missing test/data/quant/mixture_golden.json");
        return nlohmann::json::parse(in);
    }();
    return doc;
}

// The model's tensors (all f32) in the order llama-quantize visits them.
std::vector<TensorFacts> ordered_tensors(const nlohmann::json& model) {
    std::vector<TensorFacts> tensors;
    for (const auto& t : model.at("tensors")) {
        tensors.push_back({t.at(0).get<std::string>(), DType::F32, t.at(1).get<std::vector<std::int64_t>>()});
    }
    std::vector<TensorFacts> ordered;
    for (const std::size_t i : llama_tensor_order(tensors)) ordered.push_back(tensors[i]);
    return ordered;
}

ModelFacts model_facts(const nlohmann::json& f) {
    return {f.at("arch").get<std::string>(), f.at("n_layer").get<int>(), f.at("n_head").get<int>(),
            f.at("n_head_kv").get<int>(), f.at("n_expert").get<int>()};
}

TEST(QuantMixture, EveryTensorGetsLlamaCppsType) {
    ASSERT_EQ(golden().at("results").size(), 96u);
    for (const auto& result : golden().at("results")) {
        const auto& model = golden().at("models").at(result.at("model").get<std::string>());
        const std::string type = result.at("type").get<std::string>();
        const bool pure = result.at("pure").get<bool>();
        const auto file_type = file_type_from_name(type);
        ASSERT_TRUE(file_type.has_value()) << type;
        const auto tensors = ordered_tensors(model);
        Mixture mixture(*file_type, pure, model_facts(model.at("facts")), tensors);
        const auto& theirs = result.at("ggml_types");
        ASSERT_EQ(theirs.size(), tensors.size());
        for (const auto& t : tensors) {
            const TypeChoice choice = mixture.choose(t);
            const DType ours = choice.quantized ? choice.dtype : t.dtype;
            EXPECT_EQ(dtype_traits(ours).ggml_type, theirs.at(t.name).get<int>())
                << result.at("model").get<std::string>() << " " << type << (pure ? " --pure " : " ") << t.name
                << ": forge chose " << dtype_name(ours);
        }
    }
}

}  // namespace
}  // namespace forge::llm
