#include "models/llm/tokenizer/vocab.h"

#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "core/gguf/metadata.h"

#include <algorithm>
#include <array>

namespace forge::llm {

namespace {

std::vector<TokenData> read_tokens(const gguf::Metadata& meta) {
    const auto& texts = meta.array("tokenizer.ggml.tokens", gguf::ValueType::String);
    std::vector<TokenData> tokens(texts.items.size());
    for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i].text = *texts.items[i].string();
    if (meta.has("tokenizer.ggml.scores")) {
        const auto& scores = meta.array("tokenizer.ggml.scores", gguf::ValueType::F32);
        if (scores.items.size() != tokens.size()) {
            fail_format("{}: {} scores for {} tokens", meta.source(), scores.items.size(), tokens.size());
        }
        for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i].score = *scores.items[i].get_if<float>();
    }
    if (meta.has("tokenizer.ggml.token_type")) {
        const auto& types = meta.array("tokenizer.ggml.token_type", gguf::ValueType::I32);
        if (types.items.size() != tokens.size()) {
            fail_format("{}: {} token types for {} tokens", meta.source(), types.items.size(), tokens.size());
        }
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            const std::int32_t type = *types.items[i].get_if<std::int32_t>();
            if (type < 0 || type > 6) fail_format("{}: token {} has type {}", meta.source(), i, type);
            tokens[i].type = static_cast<TokenType>(type);
        }
    }
    return tokens;
}

std::vector<std::string> read_merges(const gguf::Metadata& meta) {
    const auto& items = meta.array("tokenizer.ggml.merges", gguf::ValueType::String);
    std::vector<std::string> merges;
    merges.reserve(items.items.size());
    for (const auto& item : items.items) merges.push_back(*item.string());
    return merges;
}

// Texts llama.cpp treats as end of generation besides eos/eot (llama-vocab.cpp, the EOG
// list). llama.cpp also makes such a token a control token when the file says otherwise,
// which changes how text containing it is split (Qwen3's vocabulary has "</s>" as text).
constexpr std::array<std::string_view, 20> kEndOfGenerationTexts = {
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
    "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
    "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
};

}  // namespace

Vocab Vocab::from_gguf(const gguf::GgufFile& file) {
    const gguf::Metadata meta(file);
    const std::string model = meta.string_or("tokenizer.ggml.model", "");
    VocabKind kind;
    SpecialIds special;
    if (model == "gpt2") {
        kind = VocabKind::Bpe;
        special.bos = special.eos = 11;  // llama.cpp's defaults for a BPE vocabulary
    } else if (model == "llama") {
        kind = VocabKind::SentencePiece;
        special.unk = 0, special.bos = 1, special.eos = 2;
    } else if (model == "bert") {
        // llama.cpp's defaults for a WordPiece vocabulary: the ids of BERT's vocab.txt.
        kind = VocabKind::WordPiece;
        special.pad = 0, special.unk = 100, special.bos = 101, special.sep = 102;
    } else {
        fail_format("{}: tokenizer.ggml.model = '{}' is not supported (gpt2, llama or bert)", file.source(), model);
    }
    const std::string pre = kind == VocabKind::Bpe ? meta.string_or("tokenizer.ggml.pre", "default") : "default";
    auto tokens = read_tokens(meta);
    auto merges = kind == VocabKind::Bpe ? read_merges(meta) : std::vector<std::string>{};

    auto id_key = [&](std::string_view key, std::int32_t& slot) {
        // Not range-checked: a u32 0xFFFFFFFF is -1, "none", as llama.cpp reads it.
        slot = static_cast<std::int32_t>(meta.integer_or(key, slot));
    };
    id_key("tokenizer.ggml.bos_token_id", special.bos);
    id_key("tokenizer.ggml.eos_token_id", special.eos);
    id_key("tokenizer.ggml.eot_token_id", special.eot);
    id_key("tokenizer.ggml.unknown_token_id", special.unk);
    id_key("tokenizer.ggml.padding_token_id", special.pad);
    id_key("tokenizer.ggml.seperator_token_id", special.sep);  // sic: llama.cpp's spelling

    // Family defaults first (llama.cpp: SentencePiece adds BOS, Llama 3's BPE too), then the
    // file's explicit switches win.
    const bool llama3 = pre == "llama3" || pre == "llama-v3" || pre == "llama-bpe";
    // WordPiece always opens with [CLS] (llama.cpp's WPM branch does not read the switch).
    const bool add_bos = kind == VocabKind::WordPiece ||
                         meta.boolean_or("tokenizer.ggml.add_bos_token", kind == VocabKind::SentencePiece || llama3);
    const bool add_eos = meta.boolean_or("tokenizer.ggml.add_eos_token", false);
    const bool add_space_prefix =
        meta.boolean_or("tokenizer.ggml.add_space_prefix", kind == VocabKind::SentencePiece);
    return Vocab(kind, pre, std::move(tokens), std::move(merges), special, add_bos, add_eos, add_space_prefix);
}

Vocab::Vocab(VocabKind kind, std::string pre, std::vector<TokenData> tokens, std::vector<std::string> merges,
             SpecialIds special, bool add_bos, bool add_eos, bool add_space_prefix)
    : kind_(kind), pre_(std::move(pre)), tokens_(std::move(tokens)), special_(special), add_bos_(add_bos),
      add_eos_(add_eos), add_space_prefix_(add_space_prefix) {
    for (std::size_t rank = 0; rank < merges.size(); ++rank) {
        if (merges[rank].find(' ', 1) == std::string::npos) {
            fail_format("tokenizer.ggml.merges[{}] = '{}' is not 'left right'", rank, merges[rank]);
        }
        merge_ranks_.emplace(std::move(merges[rank]), static_cast<int>(rank));
    }
    index();
}

void Vocab::index() {
    const auto n = size();
    for (std::int32_t id = 0; id < n; ++id) {
        if (tokens_[id].text.empty()) tokens_[id].text = fmt::format("[EMPTY_{}]", id);  // as llama.cpp
        ids_[tokens_[id].text] = id;  // a duplicated text maps to its last id, as in llama.cpp
    }
    for (std::int32_t* id : {&special_.bos, &special_.eos, &special_.eot, &special_.unk, &special_.pad, &special_.sep}) {
        if (*id >= n) *id = -1;
    }
    mark_end_of_generation();
    for (std::int32_t id = 0; id < n; ++id) {
        const TokenType type = tokens_[id].type;
        if (type == TokenType::Control || type == TokenType::UserDefined || type == TokenType::Unknown) {
            specials_.push_back(id);
        }
    }
    std::stable_sort(specials_.begin(), specials_.end(),
                     [&](std::int32_t a, std::int32_t b) { return tokens_[a].text.size() > tokens_[b].text.size(); });
}

void Vocab::mark_end_of_generation() {
    for (const std::int32_t id : {special_.eos, special_.eot}) {
        if (id >= 0) end_of_generation_.push_back(id);
    }
    for (const std::string_view text : kEndOfGenerationTexts) {
        const auto id = find(text);
        if (!id) continue;
        end_of_generation_.push_back(*id);
        tokens_[*id].type = TokenType::Control;
    }
    // llama.cpp's Gemma 4 exception: there "</s>" is ordinary text again (still control).
    if (find("<|tool_response>")) {
        if (const auto id = find("</s>")) std::erase(end_of_generation_, *id);
    }
    mark_harmony_tokens();
}

// gpt-oss's harmony format (llama.cpp's o200k_harmony workarounds): the tokens that frame a
// message are user-defined, so they are cut out of any text and always printed (the reply's
// parser needs to see "<|channel|>analysis<|message|>"), and "<|end|>", which closes every
// message, ends generation only in vocabularies without "<|return|>" and "<|call|>".
void Vocab::mark_harmony_tokens() {
    for (const std::string_view text : {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"}) {
        if (const auto id = find(text)) tokens_[*id].type = TokenType::UserDefined;
    }
    const auto is_eog = [&](std::string_view text) {
        const auto id = find(text);
        return id && is_end_of_generation(*id);
    };
    if (is_eog("<|return|>") && is_eog("<|call|>") && is_eog("<|end|>")) {
        const std::int32_t end = *find("<|end|>");
        std::erase(end_of_generation_, end);
        tokens_[end].type = TokenType::UserDefined;
    }
}

const TokenData& Vocab::token(std::int32_t id) const {
    check(id >= 0 && id < size(), "token id {} is out of range (vocabulary has {} tokens)", id, size());
    return tokens_[id];
}

std::optional<std::int32_t> Vocab::find(std::string_view text) const {
    // Heterogeneous lookup needs C++20 transparent hashing, which unordered_map<std::string>
    // does not enable by default; a string copy per lookup is cheap next to the merge loop.
    const auto it = ids_.find(std::string(text));
    if (it == ids_.end()) return std::nullopt;
    return it->second;
}

int Vocab::merge_rank(std::string_view left, std::string_view right) const {
    std::string key;
    key.reserve(left.size() + 1 + right.size());
    key.append(left).append(1, ' ').append(right);
    const auto it = merge_ranks_.find(key);
    return it == merge_ranks_.end() ? -1 : it->second;
}

bool Vocab::is_end_of_generation(std::int32_t id) const {
    return std::find(end_of_generation_.begin(), end_of_generation_.end(), id) != end_of_generation_.end();
}

}  // namespace forge::llm
