"""Run one app inside a network namespace that has only loopback.

Started as ``unshare -n python sandbox.py SPEC.json`` (see ``harness.run``).
Inside the new namespace it brings ``lo`` up, proves that nothing beyond
loopback is reachable (no route at all, and a connection to a public
address fails with "network unreachable"), starts the mock model API on
127.0.0.1, runs the app with a clean environment and a timeout, and writes
the outcome to ``SPEC.result``:

``{"rc", "stdout", "stderr", "timed_out", "seconds", "isolation": {...}}``
"""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mock_api  # noqa: E402  (a sibling file, run as a script)

PROBE_ADDRESSES = (("1.1.1.1", 443), ("8.8.8.8", 53), ("2606:4700:4700::1111", 443))


def isolation() -> dict:
    """What this namespace can reach besides loopback: must be nothing."""
    routes = subprocess.run(["ip", "-o", "route", "show"], capture_output=True, text=True).stdout.split("\n")
    routes6 = subprocess.run(["ip", "-o", "-6", "route", "show"], capture_output=True, text=True).stdout.split("\n")
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout.split("\n")
    probes = {}
    for host, port in PROBE_ADDRESSES:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(2)
            code = sock.connect_ex((host, port))
        probes[f"{host}:{port}"] = errno.errorcode.get(code, str(code)) if code else "CONNECTED"
    # routes on lo only (local/broadcast table entries are not listed by "show")
    outside = [r for r in routes + routes6 if r.strip() and " dev lo" not in r]
    return {
        "links": [line.split(":")[1].strip() for line in links if line.strip()],
        "routes_beyond_lo": outside,
        "probes": probes,
        "isolated": not outside and all(v in ("ENETUNREACH", "EHOSTUNREACH", "EADDRNOTAVAIL") for v in probes.values()),
    }


def run_app(argv: list, env: dict, cwd: str, timeout: float) -> dict:
    """One run of the app with a clean environment and a timeout:
    ``{"rc", "timed_out", "stdout", "stderr", "seconds"}``."""
    start = time.monotonic()
    # the app's own children live in its process group: all of them go on a timeout
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        outcome = {"rc": proc.returncode, "timed_out": False}
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        outcome = {"rc": None, "timed_out": True}
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # helpers left behind (MCP, daemons)
    except ProcessLookupError:
        pass
    outcome.update(stdout=out.decode("utf-8", "replace"), stderr=err.decode("utf-8", "replace"), seconds=round(time.monotonic() - start, 2))
    return outcome


def main() -> int:
    spec_path = sys.argv[1]
    with open(spec_path, encoding="utf-8") as handle:
        spec = json.load(handle)
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    result: dict = {"isolation": isolation()}
    if not result["isolation"]["isolated"]:
        result.update(rc=None, stdout="", stderr="refused to run: the namespace reaches beyond loopback", timed_out=False, seconds=0)
    else:
        server = mock_api.serve(spec["port"], spec["log"])
        result.update(run_app(spec["argv"], spec["env"], spec["cwd"], spec["timeout"]))
        server.shutdown()
    with open(spec_path + ".result", "w", encoding="utf-8") as handle:
        json.dump(result, handle, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
