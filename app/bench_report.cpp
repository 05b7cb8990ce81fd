#include "app/bench_report.h"

#include "app/cli_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace forge::app::bench {
namespace {

// "+12.3%": the change in the better direction (positive: NEW is better).
std::string change_text(const RowComparison& r) {
    if (r.base == nullptr || r.next == nullptr) return "";
    return fmt::format("{:+.1f}%", 100 * (r.speedup - 1));
}

std::string median_text(const Row* row) {
    if (row == nullptr) return "-";
    return fmt::format("{:.4g} ±{:.1f}%", row->summary.median, 100 * row->summary.cv);
}

std::string band_text(const RowComparison& r) {
    if (r.base == nullptr || r.next == nullptr) return "";
    return fmt::format("±{:.1f}%", 100 * (std::exp(r.band) - 1));
}

std::string verdict_text(const RowComparison& r) {
    std::string text(verdict_name(r.verdict));
    if (r.regression) text += " (regression)";
    return text;
}

const char* ansi_colour(const RowComparison& r) {
    switch (r.verdict) {
        case Verdict::Faster: return "\x1b[32m";
        case Verdict::Slower: return r.regression ? "\x1b[1;31m" : "\x1b[31m";
        case Verdict::Noise: return "\x1b[33m";
        case Verdict::Missing:
        case Verdict::New: return "\x1b[36m";
        case Verdict::Same: return "";
    }
    return "";
}

std::string summary_line(const Comparison& c) {
    std::map<Verdict, int> counts;
    int regressions = 0;
    for (const auto& r : c.rows) {
        ++counts[r.verdict];
        regressions += r.regression ? 1 : 0;
    }
    return fmt::format("{} rows: {} faster, {} slower ({} beyond the {:.0f}% threshold), {} same, {} noise, {} missing, {} new",
                       c.rows.size(), counts[Verdict::Faster], counts[Verdict::Slower], regressions, 100 * c.threshold,
                       counts[Verdict::Same], counts[Verdict::Noise], counts[Verdict::Missing], counts[Verdict::New]);
}

std::string build_text(const Record& record) {
    const auto& b = record.build;
    return fmt::format("commit {}{}, {} backend{}, {} {}", b.value("commit", "unknown").substr(0, 12),
                       b.value("dirty", false) ? " (dirty)" : "", b.value("backend", "?"), b.value("native", false) ? " native" : "",
                       b.value("compiler", "?"), b.value("buildtype", "?"));
}

std::string machine_text(const Record& record) {
    const auto& m = record.machine;
    std::string load = "?";
    if (const auto l = m.find("load_before"); l != m.end() && l->size() == 3) load = fmt::format("{:.2f}", (*l)[0].get<double>());
    return fmt::format("{} ({}, {} cores, {} threads), load {} before the run; {}", m.value("cpu", "?"),
                       m.value("instruction_set", "?"), m.value("cores", 0), m.value("threads", 0), load,
                       record.header.value("created", "undated"));
}

// A character XML 1.0 does not allow (a C0 control other than tab, newline and return;
// U+FFFE and U+FFFF) at text[i], and its length in bytes; 0 when the character is allowed.
// DEL is allowed but invisible: it goes too. Records are JSON, so their text is valid UTF-8.
std::size_t not_xml_char(std::string_view text, std::size_t i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) return 1;
    const auto byte = [&](std::size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0; };
    const bool fffe_ffff = c == 0xEF && byte(1) == 0xBF && (byte(2) & 0xFE) == 0xBE;
    return fffe_ffff ? 3 : 0;
}

// Text from a record in SVG: markup escaped, characters XML forbids shown as \xNN (the
// file would not parse otherwise).
std::string xml_escaped(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (const std::size_t bad = not_xml_char(text, i); bad > 0) {
            for (std::size_t k = 0; k < bad; ++k)
                out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i + k]));
            i += bad - 1;
            continue;
        }
        switch (text[i]) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += text[i];
        }
    }
    return out;
}

// Text from a record in Markdown, shown as it is: no HTML (`<`, `>`, `&` as entities), no
// table cell ends at a `|`, no code span, emphasis or link starts, and control characters
// (a newline would end the table row) are shown as \xNN.
std::string markdown_text(std::string_view text) {
    std::string out;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == 0x7F) {
            out += fmt::format("\\x{:02x}", c);
        } else if (ch == '<' || ch == '>' || ch == '&') {
            out += ch == '<' ? "&lt;" : ch == '>' ? "&gt;" : "&amp;";
        } else if (std::string_view("\\`*_[]|~!").find(ch) != std::string_view::npos) {
            out += '\\';
            out += ch;
        } else {
            out += ch;
        }
    }
    return out;
}

}  // namespace

// Names, units and warnings come from the records' files: printable() keeps their escape
// sequences off the terminal (and out of a report saved from it).
void print_comparison(std::FILE* out, const Comparison& c, const Labels& labels, bool colour) {
    fmt::print(out, "base: {}\nnew:  {}\n\n", printable(labels.base), printable(labels.next));
    std::size_t width = 24;
    for (const auto& r : c.rows) width = std::max(width, printable(r.name).size());
    fmt::print(out, "{:<{}} {:>9} {:>18} {:>18} {:>8} {:>8}  {}\n", "row", width, "unit", "base", "new", "change", "noise",
               "verdict");
    for (const auto& r : c.rows) {
        const char* on = colour ? ansi_colour(r) : "";
        const char* off = colour && *on != '\0' ? "\x1b[0m" : "";
        fmt::print(out, "{}{:<{}} {:>9} {:>18} {:>18} {:>8} {:>8}  {}{}\n", on, printable(r.name), width, printable(r.unit),
                   median_text(r.base),
                   median_text(r.next), change_text(r), band_text(r), verdict_text(r), off);
    }
    fmt::print(out, "\n{}\n", summary_line(c));
    for (const auto& w : c.warnings)
        fmt::print(out, "{}warning:{} {}\n", colour ? "\x1b[33m" : "", colour ? "\x1b[0m" : "", printable(w));
}

std::string markdown_report(const Comparison& c, const Record& base, const Record& next, const Labels& labels,
                            const std::string& svg_link) {
    std::string md = "# forge bench compare\n\n";
    md += fmt::format("- **base** {}: {}; {}\n", markdown_text(labels.base), markdown_text(build_text(base)),
                      markdown_text(machine_text(base)));
    md += fmt::format("- **new** {}: {}; {}\n\n", markdown_text(labels.next), markdown_text(build_text(next)),
                      markdown_text(machine_text(next)));
    md += fmt::format("**{}.** Change: positive is better (faster, or less time). A row is faster or slower only "
                      "outside its noise band and with the repetitions apart (docs/BENCHMARKS.md).\n\n",
                      summary_line(c));
    if (!svg_link.empty()) md += fmt::format("![change per row]({})\n\n", svg_link);
    md += "| row | unit | base (median ±cv) | new (median ±cv) | change | noise band | verdict |\n";
    md += "|---|---|--:|--:|--:|--:|---|\n";
    for (const auto& r : c.rows) {
        const std::string verdict = r.regression || r.verdict == Verdict::Faster ? "**" + verdict_text(r) + "**" : verdict_text(r);
        md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", markdown_text(r.name), markdown_text(r.unit),
                          median_text(r.base), median_text(r.next), change_text(r), band_text(r), verdict);
    }
    if (!c.warnings.empty()) {
        md += "\n**Warnings**\n\n";
        for (const auto& w : c.warnings) md += fmt::format("- {}\n", markdown_text(w));
    }
    return md;
}

std::string svg_chart(const Comparison& c, const Labels& labels) {
    constexpr int kWidth = 940, kLabel = 420, kRight = 80, kRowHeight = 20, kTop = 56, kBottom = 40;
    const int plot_left = kLabel + 10, plot_right = kWidth - kRight;
    const int height = kTop + kRowHeight * static_cast<int>(c.rows.size()) + kBottom;
    // The scale: the largest change or noise band, at least 10%, at most 100% (longer bars are clipped).
    double span = 0.10;
    for (const auto& r : c.rows) {
        if (r.base == nullptr || r.next == nullptr) continue;
        span = std::max({span, std::abs(r.speedup - 1), std::exp(r.band) - 1});
    }
    span = std::min(1.0, std::ceil(span * 20) / 20);
    const double zero = 0.5 * (plot_left + plot_right), half = 0.5 * (plot_right - plot_left);
    const auto x_of = [&](double change) { return zero + half * std::clamp(change / span, -1.0, 1.0); };

    std::string svg = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
        "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
        "<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n"
        "<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\" fill=\"#1f2328\">{2} vs {3}: change per row "
        "(positive is better)</text>\n"
        "<text x=\"10\" y=\"38\" fill=\"#59636e\">grey band: noise; green: faster; red: slower; light: within noise</text>\n",
        kWidth, height, xml_escaped(labels.next), xml_escaped(labels.base));
    for (int tick = -2; tick <= 2; ++tick) {
        const double change = span * tick / 2;
        const double x = x_of(change);
        svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"{3}\"/>\n", x, kTop - 4,
                           height - kBottom + 4, tick == 0 ? "#1f2328" : "#d1d9e0");
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" fill=\"#59636e\">{}</text>\n", x,
                           height - kBottom + 18, tick == 0 ? std::string("0%") : fmt::format("{:+.0f}%", 100 * change));
    }
    for (std::size_t i = 0; i < c.rows.size(); ++i) {
        const auto& r = c.rows[i];
        const int y = kTop + kRowHeight * static_cast<int>(i);
        svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#1f2328\">{}</text>\n", kLabel, y + 14,
                           xml_escaped(r.name));
        if (r.base == nullptr || r.next == nullptr) {
            svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" fill=\"#0969da\">{}</text>\n", zero + 4, y + 14,
                               verdict_name(r.verdict));
            continue;
        }
        // The band is symmetric in ln(speedup): from e^-band - 1 to e^band - 1 in change.
        const double low = x_of(std::exp(-r.band) - 1), high = x_of(std::exp(r.band) - 1);
        svg += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"#eaeef2\"/>\n", low, y + 2,
                           high - low, kRowHeight - 4);
        const char* fill = r.verdict == Verdict::Faster   ? "#1a7f37"
                           : r.verdict == Verdict::Slower ? "#cf222e"
                           : r.speedup >= 1               ? "#8ddb8c"
                                                          : "#ffaba8";
        const double x0 = std::min(x_of(0), x_of(r.speedup - 1)), x1 = std::max(x_of(0), x_of(r.speedup - 1));
        svg += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>{} {} ({})</title></rect>\n",
                           x0, y + 5, std::max(1.0, x1 - x0), kRowHeight - 10, fill, xml_escaped(r.name), change_text(r),
                           verdict_name(r.verdict));
        // The change as text beside the bar's end: the bar may be clipped at the scale's edge.
        const bool right = r.speedup >= 1;
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"{}\" font-size=\"10\" fill=\"#59636e\">{}</text>\n",
                           right ? x1 + 3 : x0 - 3, y + 14, right ? "start" : "end", change_text(r));
    }
    svg += "</svg>\n";
    return svg;
}

}  // namespace forge::app::bench
