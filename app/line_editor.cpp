#include "app/line_editor.h"

#include "core/checkpoint/atomic_file.h"
#include "core/error.h"

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <cerrno>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cwchar>
#include <string_view>

namespace forge::app {

namespace {

constexpr int kHistorySize = 1000;
constexpr wchar_t kInterruptChar = L'\x03';           // what our reader hands libedit for Ctrl-C
constexpr const char* kPasteStart = "\033[200~";      // bracketed paste, as xterm defines it
constexpr std::wstring_view kPasteEnd = L"\033[201~";
constexpr const char* kBracketedPasteOn = "\033[?2004h";
constexpr const char* kBracketedPasteOff = "\033[?2004l";

// libedit reads and writes multibyte text through the C library's locale; forge never sets
// one, and in the "C" locale every non-ASCII character would be mangled. The user's locale
// if it has one, else C.UTF-8 (always present with glibc 2.35+, Debian 12's 2.36).
void use_a_multibyte_locale() {
    const char* chosen = std::setlocale(LC_CTYPE, "");
    if (chosen == nullptr || std::strcmp(chosen, "C") == 0 || std::strcmp(chosen, "POSIX") == 0) {
        std::setlocale(LC_CTYPE, "C.UTF-8");
    }
}

std::wstring normalized_paste(std::wstring text) {
    // Terminals send a pasted line break as CR (what the Enter key sends); the message has LF.
    std::wstring out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == L'\r') {
            out += L'\n';
            if (i + 1 < text.size() && text[i + 1] == L'\n') ++i;
        } else {
            out += text[i];
        }
    }
    while (!out.empty() && out.back() == L'\n') out.pop_back();  // Enter sends it, not the paste
    return out;
}

// A terminal that says it is dumb would print the escape sequences instead of obeying them.
bool terminal_is_dumb() {
    const char* term = std::getenv("TERM");
    return term == nullptr || *term == '\0' || std::strcmp(term, "dumb") == 0;
}

}  // namespace

std::optional<std::filesystem::path> chat_history_path() {
    // The XDG base-directory spec: a relative XDG_STATE_HOME is invalid and to be ignored.
    const char* state = std::getenv("XDG_STATE_HOME");
    if (state != nullptr && std::filesystem::path(state).is_absolute()) {
        return std::filesystem::path(state) / "forge" / "chat_history";
    }
    const char* home = std::getenv("HOME");
    if (home != nullptr && *home != '\0') return std::filesystem::path(home) / ".local" / "state" / "forge" / "chat_history";
    return std::nullopt;
}


LineEditor::LineEditor()
    : history_(history_init(), history_end),
      editor_(nullptr, el_end),
      history_file_(chat_history_path()),
      bracketed_paste_(!terminal_is_dumb()) {
    use_a_multibyte_locale();
    check(history_ != nullptr, "cannot start the line editor's history (libedit)");
    HistEvent event;
    history(history_.get(), &event, H_SETSIZE, kHistorySize);
    history(history_.get(), &event, H_SETUNIQUE, 1);  // no run of the same entry
    load_history();

    editor_.reset(el_init("forge", stdin, stderr, stderr));
    check(editor_ != nullptr, "cannot start the line editor (libedit)");
    EditLine* el = editor_.get();
    el_set(el, EL_CLIENTDATA, this);
    el_set(el, EL_EDITOR, "emacs");
    el_set(el, EL_HIST, history, history_.get());
    el_set(el, EL_PROMPT, prompt_text);
    el_set(el, EL_GETCFN, read_char);
    el_source(el, nullptr);  // the user's ~/.editrc, as every libedit program reads it
    // Our keys come after it: Ctrl-C and pastes must keep their meaning.
    el_set(el, EL_ADDFN, "forge-interrupt", "Discard the line (Ctrl-C)", interrupt_key);
    el_set(el, EL_BIND, "^C", "forge-interrupt", nullptr);
    el_set(el, EL_ADDFN, "forge-paste", "Insert a bracketed paste whole", paste_key);
    el_set(el, EL_BIND, kPasteStart, "forge-paste", nullptr);
    el_set(el, EL_BIND, "^I", "ed-insert", nullptr);  // a tab is text here, not completion
}

LineEditor::~LineEditor() = default;

LineEditor& LineEditor::of(EditLine* el) {
    void* self = nullptr;
    el_get(el, EL_CLIENTDATA, &self);
    return *static_cast<LineEditor*>(self);
}

char* LineEditor::prompt_text(EditLine* el) { return of(el).prompt_.data(); }

// libedit's character source: one read() at a time, decoded from the locale's multibyte
// encoding. A read() that a signal interrupts returns EINTR (SignalFlag sets no SA_RESTART):
// a resize is passed on, a Ctrl-C becomes kInterruptChar. Returns 1, 0 at end of input, -1
// on a read error, as libedit expects.
int LineEditor::read_char(EditLine* el, wchar_t* out) {
    LineEditor& self = of(el);
    std::mbstate_t state{};
    while (true) {
        char byte = 0;
        const ssize_t n = ::read(STDIN_FILENO, &byte, 1);
        if (n == 0) return 0;
        if (n < 0) {
            if (errno != EINTR) return -1;
            if (self.resized_.take()) el_resize(el);
            if (self.interrupt_.take()) {
                *out = kInterruptChar;
                return 1;
            }
            continue;
        }
        const std::size_t decoded = std::mbrtowc(out, &byte, 1, &state);
        if (decoded == static_cast<std::size_t>(-2)) continue;  // the middle of a character
        if (decoded == static_cast<std::size_t>(-1)) {          // not valid in the locale
            state = {};
            *out = L'\xFFFD';
        }
        return 1;
    }
}

unsigned char LineEditor::interrupt_key(EditLine* el, int) {
    of(el).interrupted_ = true;
    return CC_NEWLINE;  // end el_gets; read() reports the line as interrupted
}

unsigned char LineEditor::paste_key(EditLine* el, int) {
    std::wstring text;
    wchar_t c = 0;
    while (el_wgetc(el, &c) == 1) {
        text += c;
        if (text.ends_with(kPasteEnd)) {
            text.resize(text.size() - kPasteEnd.size());
            break;
        }
    }
    const std::wstring paste = normalized_paste(std::move(text));
    if (!paste.empty()) el_winsertstr(el, paste.c_str());
    return CC_REFRESH;
}

InputLine LineEditor::read(const std::string& prompt) {
    prompt_ = prompt;
    interrupted_ = false;
    interrupt_.clear();  // a Ctrl-C during the last answer was answered there
    if (bracketed_paste_) std::fputs(kBracketedPasteOn, stderr);
    std::fflush(stderr);
    int count = 0;
    const char* line = el_gets(editor_.get(), &count);
    if (bracketed_paste_) std::fputs(kBracketedPasteOff, stderr);
    std::string text = line != nullptr && count > 0 ? std::string(line, static_cast<std::size_t>(count)) : "";
    if (!text.empty() && text.back() == '\n') text.pop_back();
    if (interrupted_) {
        std::fputs("^C\n", stderr);
        return {InputLine::Kind::Interrupted, text};
    }
    if (line == nullptr || count <= 0) {
        std::fputs("\n", stderr);  // Ctrl-D leaves the cursor after the prompt
        return {InputLine::Kind::End, ""};
    }
    return {InputLine::Kind::Text, text};
}

void LineEditor::remember(const std::string& entry) {
    if (entry.empty()) return;
    HistEvent event;
    history(history_.get(), &event, H_ENTER, entry.c_str());
    save_history();
}

void LineEditor::load_history() {
    if (!history_file_) return;
    HistEvent event;
    history(history_.get(), &event, H_LOAD, history_file_->c_str());  // none yet is fine
}

// After every entry, so that a crash or a kill loses nothing, and atomically, so that it
// never leaves half a file (mode 0600: it may hold private text). libedit writes through a
// stream on the temporary file's own descriptor, not by its name.
// A history that cannot be written is a warning, once; the chat goes on without it.
void LineEditor::save_history() {
    if (!history_file_) return;
    try {
        std::filesystem::create_directories(history_file_->parent_path());
        checkpoint::TemporaryFile file(*history_file_, 0600);
        std::FILE* out = ::fdopen(::dup(file.fd()), "w");
        check(out != nullptr, "cannot write {}: {}", file.path().string(), std::strerror(errno));
        HistEvent event;
        const bool saved = history(history_.get(), &event, H_SAVE_FP, out) >= 0;
        check(std::fclose(out) == 0 && saved, "cannot write {}", file.path().string());
        file.commit();
    } catch (const std::exception& e) {
        spdlog::warn("the chat history will not be kept: {}", e.what());
        history_file_.reset();
    }
}

}  // namespace forge::app
