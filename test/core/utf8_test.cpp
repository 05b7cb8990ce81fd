// The one UTF-8 decoder (core/utf8.h): lengths by lead byte, code points of 1 to 4 bytes, the
// sequences that do not decode, and what still decodes as llama.cpp decodes it.
#include "core/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace forge::utf8 {
namespace {

TEST(Utf8, LeadLengths) {
    EXPECT_EQ(lead_length('a'), 1u);
    EXPECT_EQ(lead_length(0xC3), 2u);
    EXPECT_EQ(lead_length(0xE2), 3u);
    EXPECT_EQ(lead_length(0xF0), 4u);
    EXPECT_EQ(lead_length(0x80), 0u);  // a continuation byte
    EXPECT_EQ(lead_length(0xF8), 0u);
    EXPECT_EQ(lead_length(0xFF), 0u);
}

TEST(Utf8, CodePointsOfOneToFourBytes) {
    const std::string text = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";  // a é € 😀
    std::size_t at = 0;
    for (const auto& [cp, length] : {std::pair{U'a', 1u}, {U'\u00E9', 2u}, {U'\u20AC', 3u}, {U'\U0001F600', 4u}}) {
        const auto d = decode(text, at);
        ASSERT_TRUE(d.has_value()) << at;
        EXPECT_EQ(d->codepoint, cp);
        EXPECT_EQ(d->length, length);
        at += d->length;
    }
    EXPECT_EQ(at, text.size());
    EXPECT_TRUE(is_valid(text));
}

TEST(Utf8, WhatDoesNotDecode) {
    for (const std::string bad : {"\x80", "\xC3", "\xE2\x82", "\xC3(", "\xE2\x28\xA1", "\xF8\x88\x80\x80\x80", "\xFF"}) {
        EXPECT_FALSE(decode(bad, 0).has_value()) << bad.size();
        EXPECT_FALSE(is_valid("ok" + bad));
    }
}

TEST(Utf8, OverlongFormsAndSurrogatesDecodeAsInLlamaCpp) {
    const auto overlong = decode("\xC0\xAF", 0);  // '/' in two bytes
    ASSERT_TRUE(overlong.has_value());
    EXPECT_EQ(overlong->codepoint, U'/');
    const auto surrogate = decode("\xED\xA0\x80", 0);
    ASSERT_TRUE(surrogate.has_value());
    EXPECT_EQ(surrogate->codepoint, 0xD800u);
}

}  // namespace
}  // namespace forge::utf8
