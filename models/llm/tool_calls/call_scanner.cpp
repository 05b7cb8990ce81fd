#include "models/llm/tool_calls/call_scanner.h"

namespace forge::llm::tool_calls {

namespace {
bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }
}  // namespace

std::string CallScanner::take_arguments() {
    std::string fresh = arguments_.substr(arguments_taken_);
    arguments_taken_ = arguments_.size();
    return fresh;
}

void CallScanner::start_value(char c) {
    state_ = State::InValue;
    depth_ = 0;
    in_string_ = false;
    escape_ = false;
    scalar_ = c != '{' && c != '[' && c != '"';
    if (target_ == Target::Arguments) arguments_started_ = true;
    value_byte(c);
}

void CallScanner::end_value() {
    if (target_ == Target::Name) name_done_ = true;
    state_ = State::AfterValue;
}

void CallScanner::value_byte(char c) {
    if (target_ == Target::Arguments) arguments_ += c;
    if (in_string_) {
        if (escape_) {
            escape_ = false;
            if (target_ == Target::Name) name_ += c;  // \" -> "
        } else if (c == '\\') {
            escape_ = true;
        } else if (c == '"') {
            in_string_ = false;
            if (depth_ == 0) end_value();
        } else if (target_ == Target::Name && depth_ == 0) {
            name_ += c;
        }
        return;
    }
    if (c == '"') {
        in_string_ = true;
        return;
    }
    if (c == '{' || c == '[') ++depth_;
    if ((c == '}' || c == ']') && --depth_ == 0) end_value();
}

bool CallScanner::push(char c) {
    switch (state_) {
        case State::Done: return false;
        case State::BeforeObject:
            if (c == '{') state_ = State::ExpectKey;
            return true;
        case State::ExpectKey:
            if (c == '"') {
                key_.clear();
                escape_ = false;
                state_ = State::InKey;
            } else if (c == '}') {
                state_ = State::Done;
            }
            return true;
        case State::InKey:
            if (escape_) {
                key_ += c;
                escape_ = false;
            } else if (c == '\\') {
                escape_ = true;
            } else if (c == '"') {
                state_ = State::ExpectColon;
                target_ = key_ == "name" ? Target::Name
                          : (key_ == "arguments" || key_ == "parameters") ? Target::Arguments
                                                                           : Target::Skip;
            } else {
                key_ += c;
            }
            return true;
        case State::ExpectColon:
            if (c == ':') state_ = State::BeforeValue;
            return true;
        case State::BeforeValue:
            if (!is_space(c)) start_value(c);
            return true;
        case State::InValue:
            if (scalar_) {  // a number, true, false or null ends at the next separator
                if (c == ',' || c == '}' || is_space(c)) {
                    end_value();
                    return push(c);
                }
                if (target_ == Target::Arguments) arguments_ += c;
                return true;
            }
            value_byte(c);
            return true;
        case State::AfterValue:
            if (c == ',') state_ = State::ExpectKey;
            else if (c == '}') state_ = State::Done;
            return true;
    }
    return true;
}

}  // namespace forge::llm::tool_calls
