"""What the real-model measuring scripts share: the tools' paths, and one pass's
llama-server and `inkling run` on loopback, talked to over the HTTP API.

scripts/measure-quality.py, measure-tag-sprawl.py and real-model-day.py each start the
same two processes with the same configuration and read the same answers; written once
here so a change to the service's configuration or API is made in one place.
"""

import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.path.join(
    os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "inkling-test-tools"
)
GEMMA_TEMPLATE = os.path.join(ROOT, "tests", "support", "gemma-chat-template.jinja")


def tools(*needed):
    """The paths scripts/real-model-tools.sh wrote to the cache's env file; exits saying
    what to run when one of `needed` is missing."""
    env_file = os.path.join(CACHE, "env")
    if not os.path.exists(env_file):
        sys.exit(f"missing {env_file}: run scripts/real-model-tools.sh first")
    values = dict(line.strip().split("=", 1) for line in open(env_file) if "=" in line)
    for key in needed:
        if not os.path.exists(values.get(key, "")):
            sys.exit(f"{key} is missing: run scripts/real-model-tools.sh")
    return values


def inkling_binary(given=None):
    """`given`, else target/release's inkling, else target/debug's."""
    candidates = [given] if given else [
        os.path.join(ROOT, "target", build, "inkling") for build in ("release", "debug")]
    for candidate in candidates:
        if os.path.exists(candidate):
            return candidate
    sys.exit("no inkling binary: run cargo build --release")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(check, timeout):
    """`check()`'s first truthy answer within `timeout` seconds, else None; a refused
    connection counts as not yet."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            result = check()
            if result:
                return result
        except OSError:
            pass
        time.sleep(0.3)
    return None


def write_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False, indent=1)


def llama_server(values, model_key, alias, context=2048, embeddings=False):
    """llama-server's command for the model under `model_key` of the tools, named
    `alias`; Gemma's GGUF template needs the one the tests give it."""
    command = [values["LLAMA_SERVER"], "-m", values[model_key], "-c", str(context),
               "--parallel", "1", "--jinja", "--host", "127.0.0.1", "--alias", alias]
    if model_key == "GEMMA_MODEL":
        command += ["--chat-template-file", GEMMA_TEMPLATE]
    if embeddings:
        command += ["--embeddings", "--pooling", "mean"]
    return command


class Service:
    """A running `inkling run`: its address and API token."""

    def __init__(self, work, base, token):
        self.work, self.base, self.token = work, base, token

    def request(self, method, path, body=None, timeout=30):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        if data:
            req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=timeout) as answer:
            return json.loads(answer.read())

    def finished(self, note_id):
        """The note once its AI work has ended (done or failed), else None."""
        seen = self.request("GET", f"/api/notes/{note_id}")
        return seen if seen["ai_status"] in ("done", "failed") else None


@contextlib.contextmanager
def service_with_model(binary, server_command, model, prefix, config_extra="", ai_extra=""):
    """Starts llama-server (`server_command`, its port added) and `inkling run` with the
    OpenAI-compatible provider pointed at it (`model`, then `config_extra`'s settings of
    the `[openai]` section and after; `ai_extra`'s in `[ai]`), in a fresh folder; yields the Service once its
    API answers, and stops both at the end. The folder (`Service.work`, with both logs)
    is the caller's to read and remove."""
    work = tempfile.mkdtemp(prefix=prefix)
    model_port, http_port = free_port(), free_port()
    server_log = open(os.path.join(work, "llama-server.log"), "w")
    server = subprocess.Popen(server_command + ["--port", str(model_port)],
                              stdout=server_log, stderr=subprocess.STDOUT)
    config = os.path.join(work, "config.toml")
    with open(config, "w") as f:
        f.write(f"""data_dir = "{work}/data"
[http]
port = {http_port}
[tray]
enabled = false
[ai]
provider = "openai"
{ai_extra}
[openai]
url = "http://127.0.0.1:{model_port}/v1"
model = "{model}"
{config_extra}""")
    service = subprocess.Popen(
        [binary, "--config", config, "run"], stdout=subprocess.DEVNULL,
        stderr=open(os.path.join(work, "inkling.log"), "w"),
        env={**os.environ, "RUST_LOG": os.environ.get("RUST_LOG", "info")})
    try:
        token_path = os.path.join(work, "data", "api-token")
        if not wait_for(lambda: os.path.exists(token_path), 60):
            sys.exit(f"inkling did not start: see {work}/inkling.log")
        running = Service(work, f"http://127.0.0.1:{http_port}",
                          open(token_path).read().strip())
        if not wait_for(lambda: running.request("GET", "/api/status"), 60):
            sys.exit(f"inkling's API did not answer: see {work}/inkling.log")
        yield running
    finally:
        service.terminate()
        server.terminate()
        service.wait(timeout=30)
        server.wait(timeout=30)
        server_log.close()
