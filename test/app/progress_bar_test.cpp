// The one progress bar (app/progress_bar.h) on a stream and a clock of the test's: without a
// terminal a plain line at most every ten seconds and the last counts at the end; on a terminal
// a bar redrawn in place, cleared before a line of its own.
#include "app/progress_bar.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace forge::app {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A memory stream and a clock the test moves.
class Capture {
public:
    Capture() : stream_(open_memstream(&data_, &size_)) {}
    ~Capture() {
        std::fclose(stream_);
        std::free(data_);
    }
    ProgressOutput output(bool terminal, bool quiet = false) {
        return {stream_, terminal, [this] { return now; }, quiet};
    }
    std::string text() {
        std::fflush(stream_);
        return {data_, size_};
    }
    double now = 100.0;

private:
    char* data_ = nullptr;
    std::size_t size_ = 0;
    std::FILE* stream_;
};

int lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

TEST(ProgressBar, WithoutATerminalALineAboutEveryTenSeconds) {
    Capture c;
    ProgressBar bar("train", "steps", c.output(false));
    for (int step = 1; step <= 100; ++step) {
        c.now += 0.5;  // a step every half second: 50 s in all
        bar.update(step, 100, "loss 1.0000");
    }
    const std::string text = c.text();
    EXPECT_EQ(lines(text), 5) << text;  // at 10, 20, 30, 40 and 50 s
    EXPECT_THAT(text, StartsWith("train: 20/100 steps, loss 1.0000, 2.00 steps/s, ETA 0m40s, 0m10s elapsed\n"));
    bar.finish();
    EXPECT_EQ(lines(c.text()), 5) << "the last counts were printed already";
}

TEST(ProgressBar, WithoutATerminalTheLastCountsAtTheEnd) {
    Capture c;
    ProgressBar bar("vocabulary", "tokens", c.output(false));
    c.now += 3.0;
    bar.update(400, 512);
    EXPECT_EQ(c.text(), "");
    c.now += 1.0;
    bar.update(512, 512);
    bar.finish();
    EXPECT_EQ(c.text(), "vocabulary: 512/512 tokens, 128 tokens/s, ETA 0m00s, 0m04s elapsed\n");
}

TEST(ProgressBar, TheRateOfAResumedRunCountsItsOwnSteps) {
    Capture c;
    ProgressBar bar("train", "steps", c.output(false));
    bar.start_from(900);
    c.now += 10.0;
    bar.update(910, 1000);
    EXPECT_THAT(c.text(), HasSubstr("910/1000 steps, 1.00 steps/s, ETA 1m30s"));
}

TEST(ProgressBar, OnATerminalABarRedrawnInPlaceAndClearedForALine) {
    Capture c;
    ProgressBar bar("nam train", "steps", c.output(true));
    c.now += 1.0;
    bar.update(15, 30, "epoch 1/2");
    const std::string drawn = c.text();
    EXPECT_THAT(drawn, StartsWith("\rnam train [###############               ] 15/30 steps, epoch 1/2, 15.0 steps/s, ETA 0m01s"));
    EXPECT_EQ(lines(drawn), 0);
    bar.line("epoch 1/2: done");
    std::string cleared = "\r";  // the bar's width in blanks, then the line from the start
    cleared.append(drawn.size() - 1, ' ').append("\repoch 1/2: done\n");
    EXPECT_THAT(c.text(), HasSubstr(cleared));
    bar.finish();
    EXPECT_EQ(lines(c.text()), 1) << "nothing drawn since the line: no newline to end";
}

// --quiet: warnings and errors only; progress is neither.
TEST(ProgressBar, QuietPrintsNothing) {
    for (const bool terminal : {false, true}) {
        Capture c;
        ProgressBar bar("train", "steps", c.output(terminal, true));
        for (int step = 1; step <= 30; ++step) {
            c.now += 1.0;
            bar.update(step, 30, "loss 1.0000");
        }
        bar.line("step 30/30: val 1.2 bits/byte");
        bar.finish();
        EXPECT_EQ(c.text(), "") << "terminal " << terminal;
    }
}

TEST(ProgressBar, DurationsAsAPersonReadsThem) {
    EXPECT_EQ(format_duration(0.4), "0m00s");
    EXPECT_EQ(format_duration(127), "2m07s");
    EXPECT_EQ(format_duration(3 * 3600 + 5 * 60 + 10), "3h05m");
}

}  // namespace
}  // namespace forge::app
