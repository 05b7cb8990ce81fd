#include "models/llm/tokenizer/bpe_trainer.h"

#include "core/error.h"
#include "models/llm/tokenizer/byte_level.h"
#include "models/llm/tokenizer/tokenizer.h"

namespace forge::llm {

namespace {

// Whitespace control on every tag ({%- -%}) so that the output does not depend on the
// renderer's trim_blocks / lstrip_blocks settings.
constexpr std::string_view kChatTemplate = R"({%- for message in messages -%}
    {%- if message['role'] == 'system' -%}
        {%- if not loop.first -%}{{- raise_exception('the system message must come first') -}}{%- endif -%}
    {%- elif message['role'] == 'user' -%}
        {{- '<|user_start|>' -}}
        {%- if loop.index0 == 1 and messages[0]['role'] == 'system' -%}{{- messages[0]['content'] + '\n\n' -}}{%- endif -%}
        {{- message['content'] + '<|user_end|>' -}}
    {%- elif message['role'] == 'assistant' -%}
        {{- '<|assistant_start|>' + message['content'] + '<|assistant_end|>' -}}
    {%- else -%}
        {{- raise_exception('unknown role: ' + message['role']) -}}
    {%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}{{- '<|assistant_start|>' -}}{%- endif -%})";


constexpr std::size_t kBos = 0;         // <|bos|> in kChatSpecialTokens
constexpr std::size_t kEndOfTurn = 4;   // <|assistant_end|>

// "left right", each side in GPT-2's byte-level alphabet: how GGUF stores a merge.
std::vector<std::string> merge_texts(const LearnedBpe& bpe) {
    std::vector<std::string> texts;
    texts.reserve(bpe.merges.size());
    for (const BpeMerge& m : bpe.merges) {
        texts.push_back(byte_level::encode(bpe.tokens[m.left]) + " " + byte_level::encode(bpe.tokens[m.right]));
    }
    return texts;
}

}  // namespace

std::string_view trained_chat_template() { return kChatTemplate; }

TrainedTokenizer train_bpe_tokenizer(const WordCounts& words, std::int32_t vocab_size,
                                     const std::function<void(const BpeTrainingProgress&)>& progress) {
    check(vocab_size >= kSmallestVocabulary,
          "a vocabulary of {} tokens is too small: 256 byte tokens and {} special tokens need at least {}", vocab_size,
          kChatSpecialTokens.size(), kSmallestVocabulary);
    check(vocab_size <= kLargestVocabulary, "a vocabulary of {} tokens is more than the {} forge trains", vocab_size,
          kLargestVocabulary);
    const auto n_special = static_cast<std::int32_t>(kChatSpecialTokens.size());
    const std::int32_t bpe_tokens = vocab_size - n_special;
    const auto sorted = words.sorted();
    TrainedTokenizer trained{words.pre_tokenizer(), learn_bpe_merges(sorted, bpe_tokens, [&](const MergeProgress& p) {
                                 if (progress) progress({p.tokens + n_special, vocab_size});
                             })};
    const auto learned = static_cast<std::int32_t>(trained.bpe.tokens.size());
    check(learned == bpe_tokens,
          "the training text has too few distinct pairs for a vocabulary of {}: every word is a single token "
          "after {} merges; ask for at most {} tokens",
          vocab_size, trained.bpe.merges.size(), trained.vocab_size());
    return trained;
}

std::int64_t count_tokens(const Tokenizer& tokenizer, const WordCounts& words) {
    std::int64_t tokens = 0;
    for (const WordCount& w : words.sorted()) {
        tokens += w.count * static_cast<std::int64_t>(tokenizer.encode(w.word, false, false).size());
    }
    return tokens;
}

Vocab TrainedTokenizer::vocab() const {
    std::vector<TokenData> tokens;
    tokens.reserve(static_cast<std::size_t>(vocab_size()));
    for (const std::string& bytes : bpe.tokens) tokens.push_back({byte_level::encode(bytes), 0.0f, TokenType::Normal});
    for (const std::string_view text : kChatSpecialTokens) tokens.push_back({std::string(text), 0.0f, TokenType::Control});

    SpecialIds special;
    special.bos = special.eos = special_id(kBos);
    special.eot = special_id(kEndOfTurn);
    return Vocab(VocabKind::Bpe, pre_tokenizer, std::move(tokens), merge_texts(bpe), special, /*add_bos=*/true,
                 /*add_eos=*/false, /*add_space_prefix=*/false);
}

void TrainedTokenizer::add_metadata(gguf::GgufWriter& writer) const {
    const Vocab v = vocab();
    gguf::Array texts{gguf::ValueType::String, {}}, types{gguf::ValueType::I32, {}}, merges{gguf::ValueType::String, {}};
    for (std::int32_t id = 0; id < v.size(); ++id) {
        texts.items.emplace_back(v.token(id).text);
        types.items.emplace_back(static_cast<std::int32_t>(v.token(id).type));
    }
    for (std::string& text : merge_texts(bpe)) merges.items.emplace_back(std::move(text));
    writer.set("tokenizer.ggml.model", gguf::Value("gpt2"));
    writer.set("tokenizer.ggml.pre", gguf::Value(pre_tokenizer));
    writer.set("tokenizer.ggml.tokens", gguf::Value(std::move(texts)));
    writer.set("tokenizer.ggml.token_type", gguf::Value(std::move(types)));
    writer.set("tokenizer.ggml.merges", gguf::Value(std::move(merges)));
    writer.set("tokenizer.ggml.bos_token_id", gguf::Value(static_cast<std::uint32_t>(v.special().bos)));
    writer.set("tokenizer.ggml.eos_token_id", gguf::Value(static_cast<std::uint32_t>(v.special().eos)));
    writer.set("tokenizer.ggml.eot_token_id", gguf::Value(static_cast<std::uint32_t>(v.special().eot)));
    writer.set("tokenizer.ggml.add_bos_token", gguf::Value(v.add_bos()));
    writer.set("tokenizer.ggml.add_eos_token", gguf::Value(v.add_eos()));
    writer.set("tokenizer.chat_template", gguf::Value(std::string(kChatTemplate)));
}

gguf::GgufWriter TrainedTokenizer::to_gguf() const {
    gguf::GgufWriter writer;
    // llama.cpp needs a known architecture even to load only the vocabulary (it reads no
    // hyperparameters then): qwen3, the architecture forge's GPTs are exported as.
    writer.set("general.architecture", gguf::Value("qwen3"));
    writer.set("general.name", gguf::Value("forge byte-level BPE tokenizer"));
    add_metadata(writer);
    return writer;
}

}  // namespace forge::llm
