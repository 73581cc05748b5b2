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
import subprocess
import sys

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
            outcome = sandbox.run_app(run["argv"], run["env"], spec["cwd"], spec["timeout"])
            outcome.update(stdout=outcome["stdout"][-4000:], stderr=outcome["stderr"][-4000:])
            result["runs"].append(outcome)
        server.shutdown()
    with open(spec_path + ".result", "w", encoding="utf-8") as handle:
        json.dump(result, handle, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
