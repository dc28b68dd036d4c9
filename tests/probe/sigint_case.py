#!/usr/bin/env python3
"""Ctrl-C ends pdcheck at once with exit status 130, SIGTERM with 143 (man/pdcheck.1, EXIT STATUS).

Usage: sigint_case.py PDCHECK REPO_ROOT

Each case starts a pdcheck command that blocks for far longer than the test
waits (a probe end waiting for its peer, a bootstrap server that never
answers), sends SIGINT, and checks that pdcheck exits 130 within seconds,
printing nothing. A pdcheck started with SIGINT ignored must keep ignoring it.
Python starts the commands: a shell would start background jobs with SIGINT
ignored.
"""
import os
import signal
import socket
import subprocess
import sys
import time

pdcheck, root = sys.argv[1], sys.argv[2]
pair = os.path.join(root, "examples", "pairs", "hetero-tp-scatter-works")
failures = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    """True once some socket of this host listens on `port` (state 0A in /proc/net/tcp)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                        return True
        except OSError:
            pass
    return False


def start(args, ignore_sigint=False):
    def preexec():
        if ignore_sigint:
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    return subprocess.Popen([pdcheck] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=preexec, cwd=root)


def interrupt(name, proc, ready, signo=signal.SIGINT, expected=130):
    """Waits until `ready()` (the command is blocked where it should be), then sends `signo`."""
    deadline = time.monotonic() + 20
    while not ready() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if proc.poll() is not None:
        out, err = proc.communicate()
        failures.append(f"{name}: ended by itself before the interrupt, exit {proc.returncode}: {err.decode()}")
        return
    time.sleep(0.3)  # past the point the command was seen to reach
    sent = time.monotonic()
    proc.send_signal(signo)
    try:
        out, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        failures.append(f"{name}: still running 10 s after {signo.name}")
        return
    took = time.monotonic() - sent
    if proc.returncode != expected:
        failures.append(f"{name}: exit {proc.returncode} after {signo.name}, expected {expected}; "
                        f"stderr: {err.decode()!r}")
    if out:
        failures.append(f"{name}: printed {out.decode()!r} after {signo.name}")
    if took > 5:
        failures.append(f"{name}: took {took:.1f} s to end after {signo.name}")
    print(f"{name}: exit {proc.returncode} {took:.2f} s after {signo.name}")


# A decode end waiting for its prefill peer (accept with --timeout 300).
port = free_port()
serve = start(["probe", "serve", os.path.join(pair, "decode.yaml"), "--listen", f"127.0.0.1:{port}",
               "--transport", "tcp", "--timeout", "300"])
interrupt("probe serve waiting for its peer", serve, lambda: listening(port))

# The same wait ended by SIGTERM (a CI job's timeout): 143, nothing printed.
port = free_port()
serve = start(["probe", "serve", os.path.join(pair, "decode.yaml"), "--listen", f"127.0.0.1:{port}",
               "--transport", "tcp", "--timeout", "300"])
interrupt("probe serve waiting for its peer, terminated", serve, lambda: listening(port), signal.SIGTERM, 143)

# A prefill end in the handshake: its peer accepted and says nothing.
with socket.socket() as silent:
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)
    port = silent.getsockname()[1]
    send = start(["probe", "send", os.path.join(pair, "prefill.yaml"), "--connect", f"127.0.0.1:{port}",
                  "--transport", "tcp", "--timeout", "300"])
    silent.settimeout(20)
    try:
        peer, _ = silent.accept()
    except socket.timeout:
        peer = None
    interrupt("probe send in the handshake", send, lambda: peer is not None)
    if peer is not None:
        peer.close()

# bootstrap polling a server that takes the request and never answers.
with socket.socket() as silent:
    silent.bind(("127.0.0.1", 0))
    silent.listen(4)
    port = silent.getsockname()[1]
    boot = start(["bootstrap", f"http://127.0.0.1:{port}", os.path.join(pair, "decode.yaml"), "--timeout", "300"])
    silent.settimeout(20)
    try:
        peer, _ = silent.accept()
    except socket.timeout:
        peer = None
    interrupt("bootstrap waiting for the server", boot, lambda: peer is not None)
    if peer is not None:
        peer.close()

# Started with SIGINT ignored: the interrupt changes nothing.
port = free_port()
ignoring = start(["probe", "serve", os.path.join(pair, "decode.yaml"), "--listen", f"127.0.0.1:{port}",
                  "--transport", "tcp", "--timeout", "300"], ignore_sigint=True)
deadline = time.monotonic() + 20
while not listening(port) and ignoring.poll() is None and time.monotonic() < deadline:
    time.sleep(0.05)
ignoring.send_signal(signal.SIGINT)
time.sleep(1)
if ignoring.poll() is not None:
    failures.append(f"started with SIGINT ignored: ended by SIGINT, exit {ignoring.returncode}")
else:
    print("started with SIGINT ignored: still running after SIGINT")
ignoring.kill()
ignoring.communicate()

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
