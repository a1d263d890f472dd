#!/usr/bin/env python3
"""The connection-slot attacks of docs/SECURITY.md, against the release build.

Usage: cargo build --release && scripts/attack-slots.py

Each attack is made the way it was first made, from another local process, and the
figures are what docs/SECURITY.md records: how captures, the page and the CLI fare
while it goes on, and how long the attacker's connections are kept.

1. 300 connections send `POST /session` with `Content-Length: 100000` and no body.
2. An unauthenticated chunked `POST /api/notes` that keeps sending chunks.
3. 300 live feeds with the token.
4. A live feed whose client leaves: how soon its slot is free again.

Python standard library only.
"""
import http.client
import json
import pathlib
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from importlib import import_module  # noqa: E402

measure = import_module("measure-idle-startup")


def connect(port):
    sock = socket.create_connection(("127.0.0.1", port))
    sock.settimeout(30)
    return sock


def capture_ms(port, token, body):
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/api/notes", json.dumps({"body": body}),
                 {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                  "Host": f"127.0.0.1:{port}"})
    status = conn.getresponse().status
    conn.close()
    assert status == 201, status
    return (time.perf_counter() - started) * 1000


def captures(port, token, label, n=50):
    times = [capture_ms(port, token, f"{label} {i}") for i in range(n)]
    return f"{n} captures: median {statistics.median(times):.1f} ms, max {max(times):.1f} ms"


def cli_ms(data_dir, port, *args):
    started = time.perf_counter()
    done = subprocess.run([measure.BINARY, *args], env=measure.env_for(data_dir, port),
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 0, done.returncode
    return (time.perf_counter() - started) * 1000


def read_until_closed(sock):
    received = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    return received


def silent_bodies(data_dir, port, token):
    started = time.perf_counter()
    silent = []
    for _ in range(300):
        sock = connect(port)
        sock.sendall(f"POST /session HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                     "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n".encode())
        silent.append(sock)
    print(f"1. 300 silent bodies held: {captures(port, token, 'beside silent bodies')}; "
          f"`inkling status` {cli_ms(data_dir, port, 'status'):.0f} ms")
    ends = []
    answered = 0
    for sock in silent:
        answer = read_until_closed(sock)
        ends.append(time.perf_counter() - started)
        answered += answer.startswith(b"HTTP/1.1 408")
        sock.close()
    print(f"   {300 - answered} evicted for newcomers, {answered} answered 408; "
          f"the last closed {max(ends):.1f} s after the first was opened")


def refused_chunked(port):
    sock = connect(port)
    sock.sendall(f"POST /api/notes HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                 "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                 "5\r\n{\"bod\r\n".encode())
    started = time.perf_counter()
    head = sock.recv(12)
    answered = time.perf_counter() - started
    sent = 0
    try:
        while True:
            sock.sendall(b"400\r\n" + b"x" * 1024 + b"\r\n")
            sent += 1024
    except (BrokenPipeError, ConnectionResetError):
        pass
    closed = time.perf_counter() - started
    sock.close()
    print(f"2. unauthenticated chunked body: {head.decode()} after {answered * 1000:.1f} ms; "
          f"the connection closed {closed:.2f} s later, after {sent // 1024} KiB more were sent")


def live_feeds(port, token):
    feeds, refused = [], 0
    for _ in range(300):
        sock = connect(port)
        sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                     f"Authorization: Bearer {token}\r\n\r\n".encode())
        head = sock.recv(12)
        if head == b"HTTP/1.1 200":
            feeds.append(sock)
        else:
            refused += 1
            sock.close()
    print(f"3. 300 live feeds asked: {len(feeds)} open, {refused} refused 503; "
          f"{captures(port, token, 'beside live feeds')}")
    return feeds


def departed_feed(port, token, feeds):
    feeds.pop().close()
    started = time.perf_counter()
    tries = 0
    while True:
        tries += 1
        sock = connect(port)
        sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                     f"Authorization: Bearer {token}\r\n\r\n".encode())
        if sock.recv(12) == b"HTTP/1.1 200":
            feeds.append(sock)
            break
        sock.close()
    print(f"4. a departed feed's slot was free again after "
          f"{(time.perf_counter() - started) * 1000:.1f} ms ({tries} tries)")


def main():
    if not measure.BINARY.exists():
        sys.exit("build it first: cargo build --release")
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = pathlib.Path(tmp)
        port = measure.free_port()
        proc, _ = measure.start(data_dir, port)
        token = (data_dir / "api-token").read_text().strip()
        try:
            print(f"0. nothing else open: {captures(port, token, 'alone')}")
            silent_bodies(data_dir, port, token)
            refused_chunked(port)
            feeds = live_feeds(port, token)
            departed_feed(port, token, feeds)
            for sock in feeds:
                sock.close()
        finally:
            measure.stop(proc)


if __name__ == "__main__":
    main()
