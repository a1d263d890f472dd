"""A stub Ollama for the measuring scripts, and a free loopback port.

`GET /api/tags` lists the default model; `POST /api/chat` answers a valid enrichment
after a delay drawn from `StubOllama.delay` (seconds, min and max). The shapes are
those of docs/PLATFORM.md ("Ollama"), as in the tests' fake (tests/support/
fake_ollama.rs), without its failure modes. Python standard library only.
"""
import http.server
import json
import random
import socket
import threading
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class StubOllama(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    delay = (0.0, 0.0)
    calls = 0  # chat calls answered or cut off

    def log_message(self, *args):
        pass

    def reply(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        try:
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the service went away mid-call (a kill, a stop)

    def do_GET(self):
        self.reply({"models": [{"name": "llama3.2:latest", "model": "llama3.2:latest"}]})

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        request = json.loads(self.rfile.read(length) or b"{}")
        type(self).calls += 1
        time.sleep(random.uniform(*self.delay))
        text = request.get("messages", [{}, {}])[1].get("content", "")
        content = json.dumps({"title": text[:40] or "Note", "tags": ["stub"], "summary": "Read."})
        self.reply({"model": request.get("model"), "message": {"role": "assistant", "content": content},
                    "done": True, "done_reason": "stop"})


def serve(port=0, delay=(0.0, 0.0)):
    """Starts a stub on a thread; returns the server (`shutdown()`, `server_close()`)
    and the handler class, whose `calls` counts the chat calls."""
    handler = type("Stub", (StubOllama,), {"delay": delay, "calls": 0})
    http.server.ThreadingHTTPServer.allow_reuse_address = True
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, handler
