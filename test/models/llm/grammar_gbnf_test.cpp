// The GBNF front end (models/llm/grammar/gbnf.h): what grammars in llama.cpp's notation accept
// and reject, byte by byte, and the line/column errors for grammars that are not valid GBNF.
// Token-level agreement with llama.cpp's sampler: grammar_gbnf_oracle_test.cpp.
#include "models/llm/grammar/gbnf.h"
#include "models/llm/grammar/grammar_limits.h"
#include "models/llm/grammar/matcher.h"
#include "test/models/llm/grammar_testing.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

namespace forge::llm::grammar {
namespace {

// The error a grammar gets, or "" when it compiles.
std::string error_of(std::string_view text) {
    try {
        compile_gbnf(text);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

// Every text of `yes` is a sentence of `g`, none of `no` is.
void expect_language(const std::shared_ptr<const Grammar>& g, std::initializer_list<std::string_view> yes, std::initializer_list<std::string_view> no) {
    for (std::string_view text : yes) EXPECT_TRUE(matches(g, text)) << text;
    for (std::string_view text : no) EXPECT_FALSE(matches(g, text)) << text;
}

testing::AssertionResult fails_at(std::string_view text, std::size_t line, std::size_t column, std::string_view words) {
    try {
        compile_gbnf(text);
    } catch (const GbnfError& e) {
        const std::string what = e.what();
        if (e.line() == line && e.column() == column && what.find(words) != std::string::npos) return testing::AssertionSuccess();
        return testing::AssertionFailure() << "got: " << what;
    }
    return testing::AssertionFailure() << "compiled";
}

TEST(GrammarGbnf, ArithmeticWithGroupsRepetitionsAndComments) {
    const auto g = compile_gbnf(R"G(# llama.cpp's grammars/arithmetic.gbnf, shortened
root  ::= (expr "=" ws term "\n")+
expr  ::= term ([-+*/] term)*
term  ::= ident | num | "(" ws expr ")" ws
ident ::= [a-z] [a-z0-9_]* ws
num   ::= [0-9]+ ws
ws    ::= [ \t\n]*
)G");
    expect_language(g, {"1+2=3\n", "(x1 *4)/y=z\nab=7\n"}, {"1+2=3", "1++2=3\n", "=3\n"});
}

TEST(GrammarGbnf, BoundedRepetitions) {
    const auto g = compile_gbnf("root ::= [0-9]{2,4} \"-\" \"ab\"{3} x{1,}\nx ::= \"x\"\n");
    expect_language(g, {"12-abababx", "1234-abababxxx"}, {"1-abababx", "12345-abababx", "12-ababx", "12-ababab"});
    const auto at_most = compile_gbnf("root ::= \"a\"{0,3} \"b\"{ 2 }");
    expect_language(at_most, {"bb", "aaabb"}, {"aaaabb"});
}

TEST(GrammarGbnf, StackedRepetitionsAsLlamaCppReadsThem) {
    const auto g = compile_gbnf("root ::= \"ab\"+? \"c\"");  // ("ab"+)?
    expect_language(g, {"c", "ababc"}, {"abac"});
}

TEST(GrammarGbnf, EscapesInLiteralsAndClasses) {
    const auto g = compile_gbnf(R"G(root ::= "\"q\\" "\n\t\r" "\x41\u00e9\U0001F600" [\[\]] [\x30-\x32])G");
    expect_language(g, {"\"q\\\n\t\rA\u00e9\U0001F600[1", "\"q\\\n\t\rA\u00e9\U0001F600]0"}, {"\"q\\\n\t\rA\u00e9\U0001F600[3"});
}

TEST(GrammarGbnf, ClassesNegationDotAndUnicode) {
    const auto g = compile_gbnf("root ::= [^\\n\"]+ \"|\" [ぁ-ゟ] . \"\\n\"");
    // '.' matches a newline, unlike a regex '.'
    expect_language(g, {"héllo|ぁ\n\n", "x|ゟ😀\n"}, {"a\"b|ぁx\n", "ab|aX\n", "|ぁx\n"});
}

TEST(GrammarGbnf, NewlinesContinueOnlyInsideParenthesesAndAfterBars) {
    const auto g = compile_gbnf("root ::=\n  (\n  \"a\"\n  | \"b\" ) |\n  \"c\"   # comment\n\n# another\nunused ::= \"z\"\n");
    expect_language(g, {"a", "b", "c"}, {});
    // A line starting with '|' is not a continuation, as in llama.cpp.
    EXPECT_TRUE(fails_at("root ::= \"a\"\n  | \"b\"\n", 2, 3, "expected a rule name"));
}

TEST(GrammarGbnf, RulesMayBeUsedBeforeTheyAreDefinedAndRecurse) {
    const auto g = compile_gbnf("root ::= list\nlist ::= \"[\" (item (\",\" item)*)? \"]\"\nitem ::= [0-9] | list\n");
    expect_language(g, {"[]", "[1,[2,[]],3]"}, {"[1,]"});
}

TEST(GrammarGbnf, EmptyAlternativesMatchNothing) {
    const auto g = compile_gbnf("root ::= \"x\" sp \"y\"\nsp ::= | \" \" | \"  \"\n");
    expect_language(g, {"xy", "x  y"}, {"x   y"});
}

TEST(GrammarGbnf, ErrorsNameLineAndColumn) {
    EXPECT_TRUE(fails_at("root ::= foo\n", 1, 10, "rule 'foo' is used but never defined"));
    EXPECT_TRUE(fails_at("root ::= a\na ::= \"x\" b\n", 2, 11, "rule 'b' is used but never defined"));
    EXPECT_TRUE(fails_at("item ::= \"x\"\n", 2, 1, "no 'root' rule"));
    EXPECT_TRUE(fails_at("root = \"x\"\n", 1, 6, "expected '::='"));
    EXPECT_TRUE(fails_at("root ::= \"abc\n", 1, 10, "never closed"));
    EXPECT_TRUE(fails_at("root ::= [abc\n", 1, 10, "never closed"));
    EXPECT_TRUE(fails_at("root ::= (\"a\" | \"b\"\n", 1, 10, "never closed"));
    EXPECT_TRUE(fails_at("root ::= \"a\" )\n", 1, 14, "expected the end of the line"));
    EXPECT_TRUE(fails_at("root ::= * \"a\"\n", 1, 10, "nothing before it to repeat"));
    EXPECT_TRUE(fails_at("root ::= \"a\"{3,2}\n", 1, 18, "less than the least"));
    EXPECT_TRUE(fails_at("root ::= \"a\"{x}\n", 1, 14, "expected a number"));
    EXPECT_TRUE(fails_at("root ::= \"a\\q\"\n", 1, 12, "unknown escape '\\q'"));
    EXPECT_TRUE(fails_at("root ::= \"\\x4\"\n", 1, 14, "expected 2 hex digits"));
    EXPECT_TRUE(fails_at("root ::= \"\\U00110000\"\n", 1, 11, "past the last Unicode code point"));
    EXPECT_TRUE(fails_at("root ::= [z-a]\n", 1, 11, "end comes before its start"));
    EXPECT_TRUE(fails_at("root ::= []\n", 1, 10, "empty character class"));
    EXPECT_TRUE(fails_at("root ::= \"a\"\nroot ::= \"b\"\n", 2, 1, "defined twice (first on line 1)"));
    EXPECT_TRUE(fails_at("root ::= \"\xff\"\n", 1, 11, "invalid UTF-8"));
}

TEST(GrammarGbnf, LeftRecursionIsRefusedNamingTheRule) {
    // llama.cpp refuses it too ("left recursion detected"); the matcher would loop.
    const std::string direct = error_of("root ::= expr\nexpr ::= expr \"+\" term | term\nterm ::= [0-9]\n");
    EXPECT_NE(direct.find("rule expr-"), std::string::npos) << direct;
    const std::string through_empty = error_of("root ::= a\na ::= b? a \"x\" | \"y\"\nb ::= \"b\"\n");
    EXPECT_NE(through_empty.find("left recursion"), std::string::npos) << through_empty;
    EXPECT_THROW(compile_gbnf("root ::= expr\nexpr ::= expr \"+\" term | term\nterm ::= [0-9]\n"), GrammarLimitError);
}

TEST(GrammarGbnf, HostileGrammarsMeetTheLimits) {
    EXPECT_THROW(compile_gbnf("root ::= \"a\"{0,99999999999999999999}"), GrammarLimitError);
    std::string many_runs = "root ::=";  // eight bounded runs of 10 000: past kMaxElements
    for (char c = 'a'; c < 'i'; ++c) many_runs += fmt::format(" \"{}\"{{0,10000}}", c);
    EXPECT_THROW(compile_gbnf(many_runs), GrammarLimitError);
    EXPECT_THROW(compile_gbnf("root ::= " + std::string(5000, '(') + "\"a\"" + std::string(5000, ')')), GbnfError);
    const std::string deep_but_allowed = "root ::= " + std::string(100, '(') + "\"a\"" + std::string(100, ')');
    EXPECT_TRUE(matches(compile_gbnf(deep_but_allowed), "a"));
}

}  // namespace
}  // namespace forge::llm::grammar
