// asr_wer: score transcripts with forge's word error rate (models/asr/wer.h).
//
//   asr_wer REFERENCES HYPOTHESES
//
// Each file holds one utterance per line, "ID<TAB>TEXT". Every reference id must have exactly
// one hypothesis (an empty text is allowed: all its words are deletions). Prints one line per
// utterance, then the corpus total (errors summed over utterances, divided by the reference
// words summed): "WER 28.17% (20 errors / 71 words: 12 sub, 3 del, 5 ins)".
#include "models/asr/wer.h"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Lines = std::vector<std::pair<std::string, std::string>>;

Lines read_lines(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error(fmt::format("{}: cannot open", path));
    Lines lines;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (line.empty()) continue;
        const auto tab = line.find('\t');
        if (tab == std::string::npos || tab == 0)
            throw std::runtime_error(fmt::format("{}:{}: expected ID<TAB>TEXT", path, number));
        lines.emplace_back(line.substr(0, tab), line.substr(tab + 1));
    }
    return lines;
}

std::map<std::string, std::string> by_id(const Lines& lines, const std::string& path) {
    std::map<std::string, std::string> out;
    for (const auto& [id, text] : lines)
        if (!out.emplace(id, text).second) throw std::runtime_error(fmt::format("{}: id {} appears twice", path, id));
    return out;
}

int score(const std::string& reference_path, const std::string& hypothesis_path) {
    const Lines references = read_lines(reference_path);
    const auto hypotheses = by_id(read_lines(hypothesis_path), hypothesis_path);
    by_id(references, reference_path);  // only for the duplicate check
    forge::asr::WordErrors total;
    for (const auto& [id, reference] : references) {
        const auto it = hypotheses.find(id);
        if (it == hypotheses.end())
            throw std::runtime_error(fmt::format("{}: no hypothesis for {}", hypothesis_path, id));
        const auto e = forge::asr::word_errors(reference, it->second);
        fmt::print("{}\t{} / {}\t{}\n", id, e.errors(), e.reference_words, it->second);
        total += e;
    }
    if (hypotheses.size() != references.size())
        throw std::runtime_error(fmt::format("{}: {} hypotheses for {} references", hypothesis_path,
                                             hypotheses.size(), references.size()));
    fmt::print("WER {:.2f}% ({} errors / {} words: {} sub, {} del, {} ins)\n", 100.0 * total.rate(), total.errors(),
               total.reference_words, total.substitutions, total.deletions, total.insertions);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: asr_wer REFERENCES HYPOTHESES   (lines ID<TAB>TEXT)\n";
        return 2;
    }
    try {
        return score(argv[1], argv[2]);
    } catch (const std::exception& e) {
        std::cerr << "asr_wer: " << e.what() << "\n";
        return 1;
    }
}
