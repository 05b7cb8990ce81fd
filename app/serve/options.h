// `forge serve`'s options, spelled as llama-server spells the same ones.
#pragma once

#include "models/llm/speculator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace forge::app::serve {

// --reasoning-format (llama-server's names: auto, none).
enum class ReasoningFormat { Auto, None };

struct ServeOptions {
    std::string model;                 // GGUF file (see resolve_model in app/serve.cpp)
    // Many models (model_source.h, model_registry.h): more files (-m, repeatable), a folder of
    // them, and how many of them, and how many MiB of their files, stay loaded at once (0: no
    // memory limit). The positional MODEL and the -m files are served in that order.
    std::vector<std::string> models;
    std::string models_dir;
    std::int64_t models_max = 4;
    std::int64_t models_memory_mib = 0;
    std::string host = "127.0.0.1";
    int port = 8080;                   // 0: any free port (the log line says which)
    std::int64_t parallel = 4;         // -np: slots, sequences decoded at once
    std::int64_t ctx_size = 4096;      // -c: positions per slot
    bool ctx_size_given = false;       // -c was given: capped per model at its trained length
    std::int64_t n_predict = -1;       // -n: default max_tokens; -1 until the end or the context is full
    std::string alias;                 // the model's name in the API (default: the file name)
    std::string api_key;               // required as "Authorization: Bearer KEY" when set
    std::string api_key_file;          // the key read from a file (first line)
    bool metrics = false;              // GET /metrics
    bool webui = true;                 // GET / serves the chat page
    std::vector<std::string> cors_origins;  // origins a browser page may call from ("*": any; cors.h)
    std::string build_info;            // "b<version>-<commit>", for GET /props
    std::int64_t queue = 64;           // requests waiting for a slot before 503
    std::string kv_type = "f16";
    // --spec, --draft-max; --lookup-file's text, tokenized for each model it serves.
    llm::SpeculationOptions speculation;
    std::string lookup_text;
    // --reasoning-format: auto splits a thinking model's reasoning out of the chat answer
    // (reasoning_content), none leaves it in the content (models/llm/answer_splitter.h).
    ReasoningFormat reasoning_format = ReasoningFormat::Auto;
    std::string pooling;               // --pooling: the embedding routes' pooling instead of the file's
    std::vector<std::string> lora;     // --lora FILE[:SCALE]: adapters applied to the (one) chat model
    std::size_t max_body = 8u << 20;   // bytes of a request body before 413
    // Hostile clients (http_server.h): connections served at once (0: parallel + queue + 16),
    // seconds for one read or write and for a whole request to arrive, MiB of request bodies
    // held at once.
    std::int64_t threads_http = 0;
    std::int64_t timeout = 30;
    std::int64_t body_budget_mib = 64;
};

}  // namespace forge::app::serve
