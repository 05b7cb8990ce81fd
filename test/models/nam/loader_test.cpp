// Loader errors: each names the file and the field.
#include "models/nam/factory.h"
#include "models/nam/nam_file.h"
#include "test/models/nam/fixtures.h"

#include <gtest/gtest.h>

#include <fstream>

namespace forge::nam {
namespace {

nlohmann::json linear_model() {
    return {{"version", "0.5.4"},
            {"architecture", "Linear"},
            {"config", {{"receptive_field", 3}, {"bias", true}}},
            {"weights", {1.0, 0.0, 0.0, 0.5}},
            {"sample_rate", 48000}};
}

std::string error_of(const nlohmann::json& doc) {
    try {
        make_model(parse_nam(doc, "model.nam"));
    } catch (const FormatError& e) {
        return e.what();
    }
    return "";
}

TEST(NamLoader, Versions) {
    EXPECT_EQ(version_support("0.5.0"), VersionSupport::Full);
    EXPECT_EQ(version_support("0.7.0"), VersionSupport::Full);
    EXPECT_EQ(version_support("0.7.3"), VersionSupport::Partial);
    EXPECT_EQ(version_support("0.8.0"), VersionSupport::None);
    EXPECT_EQ(version_support("0.4.9"), VersionSupport::None);
    EXPECT_EQ(version_support("1.0"), VersionSupport::None);
    for (const char* malformed : {"", "0.5.4x", " 0.5.4", "0.5.-4", "0.+5.4", "0..4", "0.5.4.1", "0.5", "a.b.c"})
        EXPECT_EQ(version_support(malformed), VersionSupport::None) << malformed;
    auto doc = linear_model();
    doc["version"] = "0.9.0";
    EXPECT_NE(error_of(doc).find("model.nam: version: unsupported"), std::string::npos) << error_of(doc);
}

TEST(NamLoader, WrongWeightCountNamesFile) {
    auto doc = linear_model();
    doc["weights"].push_back(1.0);
    EXPECT_NE(error_of(doc).find("model.nam: weights"), std::string::npos) << error_of(doc);
    doc = {{"version", "0.5.4"},
           {"architecture", "LSTM"},
           {"config", {{"num_layers", 1}, {"input_size", 1}, {"hidden_size", 2}}},
           {"weights", std::vector<float>(40, 0.1f)}};  // W 8x3, b 8, h0 2, c0 2, head 2 + 1: 39
    EXPECT_NE(error_of(doc).find("the model uses 39"), std::string::npos) << error_of(doc);
}

TEST(NamLoader, UnknownArchitectureAndActivation) {
    auto doc = linear_model();
    doc["architecture"] = "Transformer";
    EXPECT_NE(error_of(doc).find("unknown architecture \"Transformer\""), std::string::npos);
    doc = {{"version", "0.5.4"},
           {"architecture", "ConvNet"},
           {"config", {{"channels", 2}, {"dilations", nlohmann::json::array({1})}, {"batchnorm", false}, {"activation", "Swish9"}}},
           {"weights", nlohmann::json::array()}};
    EXPECT_NE(error_of(doc).find("unknown activation \"Swish9\""), std::string::npos) << error_of(doc);
}

// As in Core: a layer array takes the previous array's head output as its channels.
TEST(NamLoader, LayerArrayChannelsFollowThePreviousHead) {
    std::ifstream file(testing::test_data() / "core" / "wavenet_classic.nam");
    nlohmann::json doc = nlohmann::json::parse(file);
    ASSERT_EQ(error_of(doc), "");
    doc["config"]["layers"][1]["channels"] = 3;
    EXPECT_NE(error_of(doc).find("model.nam: config.layers[1].channels is 3 but the previous array's head size is 2"),
              std::string::npos)
        << error_of(doc);
}

TEST(NamLoader, MissingFieldAndMalformedJson) {
    auto doc = linear_model();
    doc["config"].erase("bias");
    EXPECT_NE(error_of(doc).find("model.nam: config.bias: missing"), std::string::npos) << error_of(doc);
    const auto path = std::filesystem::temp_directory_path() / "forge_bad.nam";
    std::ofstream(path) << "{\"version\": \"0.5.4\", ";
    try {
        read_nam_file(path);
        FAIL() << "no error";
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("forge_bad.nam: malformed JSON"), std::string::npos) << e.what();
    }
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace forge::nam
