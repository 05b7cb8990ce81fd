// How a comparison is shown: a table on the terminal (coloured when it is one), a Markdown
// report with a table, and an SVG bar chart of the change per row that a code forge's web page
// renders as an image (plain SVG 1.1: no scripts, no external fonts or styles).
#pragma once

#include "app/bench_compare.h"

#include <cstdio>
#include <string>

namespace forge::app::bench {

struct Labels {
    std::string base, next;  // how to name the two records: usually their file names
};

void print_comparison(std::FILE* out, const Comparison& comparison, const Labels& labels, bool colour);

// `svg_link`: the chart's path relative to the Markdown file, or empty for none.
std::string markdown_report(const Comparison& comparison, const Record& base, const Record& next, const Labels& labels,
                            const std::string& svg_link);

std::string svg_chart(const Comparison& comparison, const Labels& labels);

}  // namespace forge::app::bench
