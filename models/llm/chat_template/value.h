// The values a chat template computes with: Jinja's (Python's) dynamic types. Lists and
// dicts are shared by reference, as in Python, so that namespace() attributes set inside a
// loop are seen after it. Dicts keep insertion order (tojson and items() print in it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace forge::llm::jinja {

class Value;
using List = std::vector<Value>;
using Dict = std::vector<std::pair<std::string, Value>>;

struct CallArgs;
using Function = std::function<Value(CallArgs&)>;

struct Undefined {};
struct None {};

class Value {
public:
    using Storage = std::variant<Undefined, None, bool, std::int64_t, double, std::string, std::shared_ptr<List>,
                                 std::shared_ptr<Dict>, std::shared_ptr<Function>>;

    Value() = default;
    ~Value();  // iterative: see value.cpp
    Value(const Value&) = default;
    Value(Value&&) noexcept = default;
    Value& operator=(const Value&) = default;
    Value& operator=(Value&&) noexcept = default;
    Value(None) : storage_(None{}) {}  // NOLINT
    Value(bool b) : storage_(b) {}  // NOLINT
    Value(std::int64_t i) : storage_(i) {}  // NOLINT
    Value(int i) : storage_(std::int64_t{i}) {}  // NOLINT
    Value(double d) : storage_(d) {}  // NOLINT
    Value(std::string s) : storage_(std::move(s)) {}  // NOLINT
    Value(const char* s) : storage_(std::string(s)) {}  // NOLINT
    Value(List list) : storage_(std::make_shared<List>(std::move(list))) {}  // NOLINT
    Value(Dict dict) : storage_(std::make_shared<Dict>(std::move(dict))) {}  // NOLINT
    Value(Function f) : storage_(std::make_shared<Function>(std::move(f))) {}  // NOLINT
    static Value from_dict(std::shared_ptr<Dict> dict) {
        Value v;
        v.storage_ = std::move(dict);
        return v;
    }

    bool is_undefined() const { return std::holds_alternative<Undefined>(storage_); }
    bool is_none() const { return std::holds_alternative<None>(storage_); }
    bool is_bool() const { return std::holds_alternative<bool>(storage_); }
    bool is_int() const { return std::holds_alternative<std::int64_t>(storage_); }
    bool is_number() const { return is_int() || std::holds_alternative<double>(storage_); }
    bool is_string() const { return std::holds_alternative<std::string>(storage_); }
    bool is_list() const { return std::holds_alternative<std::shared_ptr<List>>(storage_); }
    bool is_dict() const { return std::holds_alternative<std::shared_ptr<Dict>>(storage_); }
    bool is_callable() const { return std::holds_alternative<std::shared_ptr<Function>>(storage_); }

    bool as_bool() const { return std::get<bool>(storage_); }
    std::int64_t as_int() const { return std::get<std::int64_t>(storage_); }
    double as_double() const;  // any number
    const std::string& as_string() const { return std::get<std::string>(storage_); }
    List& as_list() const { return *std::get<std::shared_ptr<List>>(storage_); }
    Dict& as_dict() const { return *std::get<std::shared_ptr<Dict>>(storage_); }
    const Function& as_function() const { return *std::get<std::shared_ptr<Function>>(storage_); }

    // Python truthiness: undefined, none, false, 0, "", [] and {} are false.
    bool truthy() const;
    // What {{ value }} prints (Python str(): None -> "None", True -> "True"; undefined -> "").
    std::string to_output() const;
    // JSON text with Python json.dumps' default separators (", " and ": "), non-ASCII kept.
    std::string to_json(int indent = -1, int depth = 0) const;
    std::string type_name() const;

    // dict lookup; nullptr when absent or not a dict.
    const Value* find(std::string_view key) const;

    // Whether both are the same list or the same dict (not just equal ones).
    bool same_container(const Value& other) const;

    friend bool operator==(const Value& a, const Value& b);

private:
    bool owns_children() const;
    void move_children_into(std::vector<Value>& pending);

    Storage storage_;
};

// Throws an Error if putting `item` into `container` (a list append, a dict attribute)
// would make the container contain itself, or nest more than kMaxValueDepth deep.
void check_insertable(const Value& container, const Value& item);

// Throws an Error if a string of `bytes` would pass kMaxTextBytes.
void check_text_size(std::size_t bytes);

// Arguments of a call: positional, then keyword.
struct CallArgs {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> keyword;

    // The argument at `index` or named `name`, else `fallback`.
    Value get(std::size_t index, std::string_view name, Value fallback = Value()) const;
};

}  // namespace forge::llm::jinja
