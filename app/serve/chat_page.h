// The chat page served at GET /: one self-contained HTML file (app/serve/chat_page.html: its
// CSS and JavaScript inline, nothing fetched from elsewhere), embedded in the binary at build
// time by tools/embed_text.py.
#pragma once

#include <string_view>

namespace forge::app::serve {

std::string_view chat_page();

}  // namespace forge::app::serve
