#include "app/chat_repl.h"

#include "app/cli_checks.h"

#include "core/checkpoint/atomic_file.h"
#include "core/error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <string_view>

namespace forge::app {

namespace {

constexpr const char* kPrompt = "> ";
constexpr const char* kContinuation = "... ";

std::string_view trimmed(std::string_view text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t") + 1 - first);
}

// The conversation as JSON in the shape of an OpenAI chat request (what `forge serve` and
// `forge train sft` read): {"model": ..., "messages": [{"role", "content"}, ...]}.
std::string conversation_json(const Conversation& conversation) {
    nlohmann::ordered_json messages = nlohmann::ordered_json::array();
    for (const llm::ChatMessage& m : conversation.messages()) {
        nlohmann::ordered_json message = {{"role", m.role}, {"content", m.content}};
        if (!m.reasoning_content.empty()) message["reasoning_content"] = m.reasoning_content;
        messages.push_back(std::move(message));
    }
    const nlohmann::ordered_json document = {{"model", conversation.model_name()}, {"messages", std::move(messages)}};
    return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

class Repl {
public:
    Repl(Conversation& conversation, LineInput& input) : conversation_(conversation), input_(input) {}

    void run() {
        while (!done_) {
            const InputLine message = read_message();
            if (message.kind == InputLine::Kind::End) return;
            if (message.kind == InputLine::Kind::Interrupted) {
                interrupted(message.text);
                continue;
            }
            armed_ = false;
            input_.remember(message.text);
            if (message.text.starts_with("//")) {
                send(message.text.substr(1));
            } else if (message.text.starts_with('/')) {
                command(message.text);
            } else if (!trimmed(message.text).empty()) {
                send(message.text);
            }
        }
    }

private:
    struct Command {
        std::string_view name, usage, help;
        void (Repl::*run)(std::string_view argument);
    };
    static const std::array<Command, 5> kCommands;

    // Lines joined while each ends with a backslash.
    InputLine read_message() {
        std::string text;
        const char* prompt = kPrompt;
        while (true) {
            InputLine line = input_.read(prompt);
            if (line.kind != InputLine::Kind::Text) return {line.kind, text + line.text};
            if (!line.text.ends_with('\\')) return {InputLine::Kind::Text, text + line.text};
            text += line.text.substr(0, line.text.size() - 1) + "\n";
            prompt = kContinuation;
        }
    }

    void send(const std::string& text) {
        input_.take_interrupt();  // only a Ctrl-C from now on stops this answer
        if (!conversation_.turn(text, [this] { return input_.take_interrupt(); })) {
            std::fputs("(stopped)\n", stderr);
            armed_ = true;
        }
    }

    // Ctrl-C at the prompt: a line being typed is dropped; at an empty prompt, the second
    // Ctrl-C in a row (the first may have stopped an answer) ends the session.
    void interrupted(const std::string& discarded) {
        if (!discarded.empty()) {
            armed_ = false;
            return;
        }
        if (armed_) {
            done_ = true;
            return;
        }
        armed_ = true;
        std::fputs("(press Ctrl-C again, Ctrl-D or type /exit to quit)\n", stderr);
    }

    void command(std::string_view line) {
        const std::size_t space = line.find_first_of(" \t");
        const std::string_view name = line.substr(0, space);
        const std::string_view argument = space == std::string_view::npos ? "" : trimmed(line.substr(space));
        try {
            for (const Command& c : kCommands) {
                if (c.name == name) {
                    (this->*c.run)(argument);
                    return;
                }
            }
            fail("unknown command {} (/help lists the commands)", name);
        } catch (const Error& e) {
            if (!input_.interactive()) throw;  // a script's mistake ends it
            fmt::print(stderr, "error: {}\n", printable(e.what()));
        }
    }

    static void no_argument(std::string_view name, std::string_view argument) {
        check(argument.empty(), "{} takes no argument", name);
    }

    void help(std::string_view argument) {
        no_argument("/help", argument);
        std::string text = "Type a message and press Enter. A line ending in \\ goes on with the next one;\n"
                           "a paste is sent whole. Up/Down recall earlier messages (kept between sessions).\n";
        for (const Command& c : kCommands) text += fmt::format("  {:<15} {}\n", c.usage, c.help);
        text += "  //TEXT          send TEXT that starts with '/'\n"
                "Ctrl-C stops an answer; at an empty prompt, Ctrl-C twice or Ctrl-D exits.\n";
        std::fputs(text.c_str(), stderr);
    }

    void reset(std::string_view argument) {
        no_argument("/reset", argument);
        conversation_.reset();
        std::fputs("(conversation cleared)\n", stderr);
    }

    void system(std::string_view argument) {
        conversation_.set_system(std::string(argument));
        std::fputs(argument.empty() ? "(system message removed)\n" : "(system message set)\n", stderr);
    }

    void save(std::string_view argument) {
        check(!argument.empty(), "usage: /save FILE");
        checkpoint::write_file_atomically(std::string(argument), conversation_json(conversation_));
        fmt::print(stderr, "(saved {} messages to {})\n", conversation_.messages().size(), argument);
    }

    void exit(std::string_view argument) {
        no_argument("/exit", argument);
        done_ = true;
    }

    Conversation& conversation_;
    LineInput& input_;
    bool done_ = false;
    bool armed_ = false;  // the last thing that happened was a Ctrl-C
};

const std::array<Repl::Command, 5> Repl::kCommands = {{
    {"/help", "/help", "this list", &Repl::help},
    {"/reset", "/reset", "forget the conversation (the system message stays)", &Repl::reset},
    {"/system", "/system [TEXT]", "set the system message (none without TEXT)", &Repl::system},
    {"/save", "/save FILE", "write the conversation to FILE as JSON", &Repl::save},
    {"/exit", "/exit", "end the session (so do Ctrl-D and Ctrl-C twice)", &Repl::exit},
}};

}  // namespace

void run_repl(Conversation& conversation, LineInput& input) { Repl(conversation, input).run(); }

}  // namespace forge::app
