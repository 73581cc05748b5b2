"""Run an app's scripted session inside a network namespace with only loopback.

Started as ``unshare -n python scripted_sandbox.py SPEC.json`` (see
``fresh.run``).  Like ``sandbox.py`` it proves nothing beyond loopback is
reachable before anything starts, then serves ``scripted_api`` on
127.0.0.1 and runs the app once per entry of ``spec["runs"]`` (the first
turn, then the resumed second), each with a clean environment and a
timeout.  Writes ``SPEC.result``: ``{"isolation", "runs": [{rc, stdout,
stderr, timed_out, seconds}]}``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import sandbox  # noqa: E402  (siblings, run as a script)
import scripted_api  # noqa: E402


def main() -> int:
    spec_path = sys.argv[1]
    with open(spec_path, encoding="utf-8") as handle:
        spec = json.load(handle)
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    result: dict = {"isolation": sandbox.isolation(), "runs": []}
    if result["isolation"]["isolated"]:
        server = scripted_api.serve(spec["port"], spec["log"], spec["cwd"])
        for run in spec["runs"]:
            start = time.monotonic()
            proc = subprocess.Popen(run["argv"], env=run["env"], cwd=spec["cwd"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
            try:
                out, err = proc.communicate(timeout=spec["timeout"])
                outcome = {"rc": proc.returncode, "timed_out": False}
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                out, err = proc.communicate()
                outcome = {"rc": None, "timed_out": True}
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # helpers left behind
            except ProcessLookupError:
                pass
            outcome.update(stdout=out.decode("utf-8", "replace")[-4000:], stderr=err.decode("utf-8", "replace")[-4000:], seconds=round(time.monotonic() - start, 2))
            result["runs"].append(outcome)
        server.shutdown()
    with open(spec_path + ".result", "w", encoding="utf-8") as handle:
        json.dump(result, handle, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
