// llama-server's LoRA routes (lora_adapters.h):
//   GET  /lora-adapters   [{"id": 0, "path": "A.gguf", "scale": 1.0}, ...] (the global scales)
//   POST /lora-adapters   [{"id": 0, "scale": 0.5}, ...] sets them (unnamed adapters: 0)
// for the model named by ?model= (or the only one), whose --lora adapters they are.
#include "app/serve/api_error.h"
#include "app/serve/http_server.h"
#include "app/serve/json_reply.h"
#include "app/serve/server.h"
#include "core/error.h"
#include "core/json.h"

#include <fmt/format.h>
#include <httplib.h>

namespace forge::app::serve {

namespace {

using json = nlohmann::ordered_json;

nlohmann::json adapter_list(const ChatModel& chat) {
    nlohmann::json out = nlohmann::json::array();
    const llm::lora::LoraStack* adapters = chat.model.lora();
    if (adapters == nullptr) return out;
    const std::vector<float> scales = chat.lora_scales.get();
    for (std::size_t i = 0; i < adapters->size(); ++i) {
        out.push_back({{"id", i}, {"path", adapters->path(i)}, {"scale", scales[i]}});
    }
    return out;
}

// The body: llama-server's list itself, or an object {"lora": [...]}.
json scales_body(const std::string& text) {
    try {
        return parse_ordered_json(text, "request body", kMaxDocumentDepth);
    } catch (const FormatError& e) {
        throw invalid_request(fmt::format("The request body is not valid JSON ({})", e.what()), {}, "invalid_json");
    }
}

}  // namespace

void Server::add_lora_routes() {
    HttpServer& http = *http_;
    http.Get("/lora-adapters", [this](const httplib::Request& req, httplib::Response& res) {
        try {
            const ModelLease lease = model_for(req.get_param_value("model"));
            send_json(res, 200, adapter_list(lease->chat_model()));
        } catch (const ApiError& error) {
            send_error(res, error);
        }
    });
    http.Post("/lora-adapters", [this](const httplib::Request& req, httplib::Response& res) {
        try {
            const json body = scales_body(req.body);
            const ModelLease lease = model_for(req.get_param_value("model"));
            ChatModel& chat = lease->chat_model();
            const std::size_t n = chat.model.lora() ? chat.model.lora()->size() : 0;
            const bool wrapped = body.is_object() && body.contains("lora");
            chat.lora_scales.set(parse_lora_scales(wrapped ? body.at("lora") : body, n, wrapped ? "lora" : "body"));
            send_json(res, 200, {{"success", true}});
        } catch (const ApiError& error) {
            send_error(res, error);
        }
    });
}

}  // namespace forge::app::serve
