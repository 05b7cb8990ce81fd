#include "app/serve/chat_page.h"

#include "chat_page_html.h"  // generated from chat_page.html (app/meson.build)

namespace forge::app::serve {

std::string_view chat_page() { return kChatPageHtml; }

}  // namespace forge::app::serve
