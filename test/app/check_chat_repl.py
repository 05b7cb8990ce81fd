#!/usr/bin/env python3
"""The `forge chat` REPL on a terminal, as a person uses it: forge runs in a pseudo-terminal
(stdin and stderr on the pty, which is its controlling terminal, so Ctrl-C is a real SIGINT)
while stdout, where answers go, is a pipe the test reads exactly.

The models are committed random-weight goldens (qwen3 and llama) at temperature 0, so an answer is a fingerprint
of the exact text the model was sent: each REPL turn must print what `forge chat -p TEXT`
prints for the text that the keys should have produced (line editing, history recalled from
an earlier session, a backslash continuation, a bracketed paste, /system).

usage: check_chat_repl.py FORGE LLM_TEST_DATA_DIR
"""
import fcntl
import json
import os
import pathlib
import select
import stat
import subprocess
import sys
import tempfile
import termios
import time
import unittest

FORGE = MODEL = None
GREEDY = ["--temp", "0", "-n", "6", "--ctx", "256"]
UP, LEFT = "\x1b[A", "\x1b[D"
CTRL_C, CTRL_D = "\x03", "\x04"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def one_shot(text, *extra):
    """The answer `forge chat -p` prints (stdin not a terminal), closing newline included."""
    run = subprocess.run([FORGE, "chat", MODEL, *GREEDY, *extra, "-p", text], capture_output=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout


class Session:
    """forge chat on a fresh pseudo-terminal; the state directory holds the history file."""

    def __init__(self, state_dir, *args):
        master, slave = os.openpty()
        self.master = master
        env = dict(os.environ, TERM="xterm", XDG_STATE_HOME=str(state_dir), HOME=str(state_dir), LC_ALL="C.UTF-8")
        env.pop("EDITRC", None)

        def take_the_terminal():  # runs in the child after setsid: the pty becomes its terminal
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.process = subprocess.Popen([FORGE, "chat", MODEL, *args], stdin=slave, stderr=slave,
                                        stdout=subprocess.PIPE, env=env, start_new_session=True,
                                        preexec_fn=take_the_terminal)
        os.close(slave)
        self.stdout_fd = self.process.stdout.fileno()
        self.out = b""       # stdout: the answers
        self.screen = b""    # what the terminal shows (prompts, echo, messages)
        self.reads = 0       # lines that forge has been sent so far

    def pump(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.master, self.stdout_fd], [], [], 0.02)
            for fd in ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # the pty closes when forge exits
                    chunk = b""
                if fd == self.master:
                    self.screen += chunk
                else:
                    self.out += chunk

    def wait_screen(self, text, seen=0, timeout=30):
        """Wait until `text` shows on the terminal after byte `seen`; returns where it ends."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            where = self.screen.find(text.encode(), seen)
            if where >= 0:
                return where + len(text)
            self.pump(0.05)
        raise AssertionError(f"{text!r} never showed; the terminal shows {self.screen[seen:]!r}")

    def wait_prompt(self):
        """Wait for the prompt of the next read: bracketed paste is switched on before each,
        then libedit puts the terminal in its mode and draws the prompt (keys sent before that
        would meet the terminal's own line discipline)."""
        end = time.monotonic() + 30
        while True:
            marks = self.screen.split(b"\x1b[?2004h")
            if len(marks) > self.reads + 1 and (b"> " in marks[self.reads + 1] or b"... " in marks[self.reads + 1]):
                return
            assert time.monotonic() < end, f"prompt {self.reads + 1} never came; the terminal shows {self.screen!r}"
            self.pump(0.02)

    def keys(self, text, ends_a_read=False):
        """Send keys at the next prompt; ends_a_read: they end it (Enter, Ctrl-C, Ctrl-D)."""
        self.wait_prompt()
        os.write(self.master, text.encode())
        self.reads += ends_a_read

    def type_lines(self, *lines):
        """Each line typed at its own prompt and sent with Enter."""
        for line in lines:
            self.keys(line + "\r", ends_a_read=True)

    def finish(self, timeout=30):
        end = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < end:
            self.pump(0.05)
        self.pump(0.1)
        if self.process.poll() is None:
            self.process.kill()
            raise AssertionError(f"forge did not exit; the terminal shows {self.screen!r}")
        os.close(self.master)
        self.process.stdout.close()
        return self.process.returncode


class ChatRepl(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.state = pathlib.Path(self.tmp.name)
        self.sessions = []

    def tearDown(self):
        for s in self.sessions:  # a failed test leaves no forge behind
            if s.process.poll() is None:
                s.process.kill()
                s.process.wait()
        self.tmp.cleanup()

    def session(self, *args, greedy=True):
        s = Session(self.state, *(GREEDY if greedy else []), *args)
        self.sessions.append(s)
        return s

    def test_line_editing_and_history_that_persists(self):
        hello = one_shot("Hello")
        self.assertNotEqual(hello, one_shot("Helo"))  # else the edit below proves nothing
        first = self.session()
        first.type_lines("Helo" + LEFT + "l")  # the cursor moved back one character: "Hello"
        first.type_lines("/exit")
        self.assertEqual(first.finish(), 0)
        self.assertEqual(first.out, hello)

        history = self.state / "forge" / "chat_history"
        self.assertTrue(history.exists())
        self.assertEqual(stat.S_IMODE(history.stat().st_mode), 0o600)  # it may hold private text
        second = self.session()  # a new session: Up recalls /exit, then Hello
        second.type_lines(UP + UP)
        second.keys(CTRL_D, ends_a_read=True)
        self.assertEqual(second.finish(), 0)
        self.assertEqual(second.out, hello)

    def test_a_trailing_backslash_and_a_paste_make_multi_line_messages(self):
        continued, pasted = "Hello\nthere", "first line\nsecond line"
        s = self.session()
        s.type_lines("Hello\\")
        s.wait_screen("... ")
        s.type_lines("there", "/reset")
        # A paste arrives whole: its line breaks (CR, as terminals send them) do not send it.
        s.keys(PASTE_START + "first line\rsecond line" + PASTE_END)
        s.pump(0.3)
        self.assertEqual(s.out, one_shot(continued))  # nothing sent for the paste yet
        s.keys("\r", ends_a_read=True)
        saved = self.state / "conversation.json"
        s.type_lines(f"/save {saved}", "/exit")
        self.assertEqual(s.finish(), 0)
        self.assertEqual(s.out, one_shot(continued) + one_shot(pasted))
        conversation = json.loads(saved.read_text())
        self.assertEqual(conversation["model"], MODEL)
        self.assertEqual([m["role"] for m in conversation["messages"]], ["user", "assistant"])
        self.assertEqual(conversation["messages"][0]["content"], pasted)

    def test_commands(self):
        s = self.session()
        s.type_lines("/help")
        s.wait_screen("/save FILE")
        s.type_lines("/bogus")  # an error, not a message: nothing reaches the model
        s.wait_screen("error: unknown command /bogus")
        s.type_lines("/system Answer briefly", "Hello")
        saved = self.state / "out" / "chat.json"
        s.type_lines(f"/save {saved}")  # no such directory: an error, and the session goes on
        s.wait_screen("error: ")
        # Each answer below starts a conversation, so that `forge chat -p` can tell what it must be.
        s.type_lines("/reset", "Hello", "/system", "/reset", "//Hello", "/exit")
        self.assertEqual(s.finish(), 0)
        with_system = one_shot("Hello", "--system", "Answer briefly")
        self.assertNotEqual(with_system, one_shot("Hello"))
        self.assertEqual(s.out, with_system + with_system + one_shot("/Hello"))

    def test_ctrl_c_stops_the_answer_and_twice_exits(self):
        # Plain completion never ends on its own here: 30000 tokens would take minutes.
        s = self.session("--raw", "--temp", "0", "-n", "30000", "--ctx", "32768", greedy=False)
        s.type_lines("/save " + str(self.state / "before.json"))
        s.type_lines("Hello")
        end = time.monotonic() + 30
        while len(s.out) < 20:
            self.assertLess(time.monotonic(), end, "no answer came")
            s.pump(0.02)
        os.write(s.master, CTRL_C.encode())
        seen = s.wait_screen("(stopped)", timeout=10)
        stopped_at = len(s.out)
        s.keys(CTRL_C, ends_a_read=True)  # the second Ctrl-C in a row, at an empty prompt: exit
        self.assertEqual(s.finish(timeout=10), 0)
        self.assertEqual(len(s.out), stopped_at)  # nothing came after the stop
        self.assertIn(b"generation:", s.screen[seen:])  # the closing speed report

    def test_ctrl_c_clears_a_line_and_asks_before_exiting(self):
        s = self.session()
        s.keys("half a message")
        s.wait_screen("half a message")  # typed ahead, a Ctrl-C would flush it in the terminal
        s.keys(CTRL_C, ends_a_read=True)  # the line is dropped, not sent
        s.keys(CTRL_C, ends_a_read=True)  # the first at an empty prompt only explains
        s.wait_screen("press Ctrl-C again")
        s.wait_prompt()
        self.assertIsNone(s.process.poll())
        s.keys(CTRL_C, ends_a_read=True)
        self.assertEqual(s.finish(timeout=10), 0)
        self.assertEqual(s.out, b"")


if __name__ == "__main__":
    FORGE = sys.argv[1]
    ok = True
    # A BPE model with ChatML and a SentencePiece one with quantized weights.
    for name in ["qwen3-f32", "llama-q8_0"]:
        MODEL = str(pathlib.Path(sys.argv[2]) / f"{name}.gguf")
        print(f"=== {name}", flush=True)
        result = unittest.main(argv=sys.argv[:1], verbosity=2, exit=False).result
        ok = ok and result.wasSuccessful()
    sys.exit(0 if ok else 1)
