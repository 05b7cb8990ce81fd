// Reads one function-call object, {"name": "f", "arguments": {...}} (or "parameters", Llama's
// word), a byte at a time as the model writes it: the name as soon as its string closes, and
// the arguments value's text as it arrives, so a stream can forward both without waiting for
// the end of the call. Other keys are skipped. The arguments are passed on as written (JSON
// text, which is what OpenAI's `arguments` string holds).
#pragma once

#include <string>
#include <string_view>

namespace forge::llm::tool_calls {

class CallScanner {
public:
    // Feeds one byte. Returns false once the object has ended (the byte is not used then).
    bool push(char c);

    bool started() const { return state_ != State::BeforeObject; }
    bool done() const { return state_ == State::Done; }
    bool has_name() const { return name_done_; }
    const std::string& name() const { return name_; }
    bool has_arguments() const { return arguments_started_; }
    // Arguments text scanned so far (take_arguments() hands out what is new since the last call).
    const std::string& arguments() const { return arguments_; }
    std::string take_arguments();

private:
    enum class State { BeforeObject, ExpectKey, InKey, ExpectColon, BeforeValue, InValue, AfterValue, Done };
    enum class Target { Name, Arguments, Skip };

    void start_value(char c);
    void value_byte(char c);
    void end_value();

    State state_ = State::BeforeObject;
    Target target_ = Target::Skip;
    std::string key_;
    bool escape_ = false;
    // The current value: nesting depth of {} and [], inside a string, a bare scalar.
    int depth_ = 0;
    bool in_string_ = false, scalar_ = false;
    std::string name_;
    bool name_done_ = false;
    std::string arguments_;
    bool arguments_started_ = false;
    std::size_t arguments_taken_ = 0;
};

}  // namespace forge::llm::tool_calls
