"""Seeded generator of realistic Claude Code logs and Codex rollouts of any size.

The line mix and sizes follow the real files of the corpus: Codex lines
average ~1.3 KB with a median ~0.4 KB and long tails of tool output and
encrypted reasoning; Claude Code lines average ~3.7 KB and tool results
carry most of the bytes.  Sizes are drawn from log-normal distributions, so
a few lines are hundreds of KB, as in real sessions.

    python benchmarks/generate.py claude-code 200MB benchmarks/data/claude-200mb.jsonl
    python benchmarks/generate.py codex 1GB benchmarks/data/codex-1gb.jsonl
"""

from __future__ import annotations

import argparse
import base64
import random
import sys
import uuid
from datetime import datetime, timedelta, timezone

import orjson

WORDS = (
    "the a to of and in is it that for on with as this be are was at by or from but not you "
    "test file run fix error pass fail build import return value function class module config "
    "cart total discount request response token parse stream line memory buffer index session"
).split()
CODE = [
    "def total(items):", "    return sum(i.price for i in items)", "import os", "from pathlib import Path",
    "class Cart:", "    def __init__(self):", "        self.items = []", "if __name__ == '__main__':",
    "const x = await fetch(url);", "export function apply(discount) {", "  return price * (1 - discount);", "}",
]


def parse_size(text: str) -> int:
    text = text.strip().upper()
    for unit, factor in (("GIB", 2**30), ("MIB", 2**20), ("KIB", 2**10), ("GB", 10**9), ("MB", 10**6), ("KB", 10**3), ("G", 10**9), ("M", 10**6), ("K", 10**3)):
        if text.endswith(unit):
            return int(float(text[: -len(unit)]) * factor)
    return int(text)


class Clock:
    def __init__(self, rng: random.Random) -> None:
        self.now = datetime(2025, 10, 1, 9, 0, 0, tzinfo=timezone.utc)
        self.rng = rng

    def tick(self) -> str:
        self.now += timedelta(milliseconds=self.rng.randint(50, 20000))
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"


def words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(max(1, count)))


def output_text(rng: random.Random, size: int) -> str:
    lines, total = [], 0
    while total < size:
        line = rng.choice(CODE) if rng.random() < 0.5 else words(rng, rng.randint(3, 14))
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)


def lognormal(rng: random.Random, median: float, sigma: float, cap: int) -> int:
    return min(cap, int(rng.lognormvariate(0, sigma) * median))


def claude_lines(rng: random.Random):
    clock = Clock(rng)
    session = str(uuid.UUID(int=rng.getrandbits(128)))
    base = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/shop", "sessionId": session, "version": "2.0.55", "gitBranch": "main"}
    parent = None
    cache = 12000
    while True:
        stamp = clock.tick()
        me = str(uuid.UUID(int=rng.getrandbits(128)))
        yield {"type": "file-history-snapshot", "messageId": me, "snapshot": {"messageId": me, "trackedFileBackups": {}, "timestamp": stamp}, "isSnapshotUpdate": False}
        prompt = {"parentUuid": parent, **base, "type": "user", "message": {"role": "user", "content": words(rng, lognormal(rng, 25, 1.0, 2000))}, "uuid": me, "timestamp": stamp}
        yield prompt
        parent = me
        for _ in range(rng.randint(1, 12)):
            message_id = "msg_01" + "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789") for _ in range(22))
            request = "req_011" + "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(21))
            cache += rng.randint(100, 3000)
            usage = {"input_tokens": rng.randint(1, 10), "cache_creation_input_tokens": rng.randint(0, 4000), "cache_read_input_tokens": cache, "output_tokens": rng.randint(1, 800), "service_tier": "standard"}
            blocks = []
            if rng.random() < 0.3:
                blocks.append({"type": "thinking", "thinking": words(rng, lognormal(rng, 60, 1.0, 3000)), "signature": base64.b64encode(rng.randbytes(lognormal(rng, 300, 0.5, 3000))).decode()})
            if rng.random() < 0.6:
                blocks.append({"type": "text", "text": words(rng, lognormal(rng, 40, 1.1, 3000))})
            tool_id = "toolu_01" + "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789") for _ in range(22))
            name = rng.choice(["Bash", "Read", "Edit", "Grep", "Write", "TodoWrite"])
            inputs = {"Bash": {"command": "npm test -- cart.test.ts", "description": "Run the cart tests"}, "Read": {"file_path": "/home/dev/shop/src/cart.ts"}, "Edit": {"file_path": "/home/dev/shop/src/cart.ts", "old_string": output_text(rng, 200), "new_string": output_text(rng, 220)}, "Grep": {"pattern": "discount", "path": "src"}, "Write": {"file_path": "/home/dev/shop/src/new.ts", "content": output_text(rng, lognormal(rng, 1500, 1.0, 40000))}, "TodoWrite": {"todos": [{"content": words(rng, 8), "status": "pending", "activeForm": words(rng, 6)}]}}[name]
            blocks.append({"type": "tool_use", "id": tool_id, "name": name, "input": inputs})
            for block in blocks:
                me = str(uuid.UUID(int=rng.getrandbits(128)))
                yield {"parentUuid": parent, **base, "message": {"model": "claude-sonnet-4-5-20250929", "id": message_id, "type": "message", "role": "assistant", "content": [block], "stop_reason": None, "stop_sequence": None, "usage": usage}, "requestId": request, "type": "assistant", "uuid": me, "timestamp": clock.tick()}
                parent = me
            result = output_text(rng, lognormal(rng, 1400, 1.5, 600000))
            me = str(uuid.UUID(int=rng.getrandbits(128)))
            copy = {"stdout": result, "stderr": "", "interrupted": False, "isImage": False} if name == "Bash" else {"type": "text", "file": {"filePath": "/home/dev/shop/src/cart.ts", "content": result, "numLines": result.count("\n") + 1}}
            yield {"parentUuid": parent, **base, "type": "user", "message": {"role": "user", "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": result, "is_error": rng.random() < 0.05}]}, "uuid": me, "timestamp": clock.tick(), "toolUseResult": copy}
            parent = me
        if rng.random() < 0.3:
            yield {"parentUuid": parent, **base, "type": "system", "subtype": "stop_hook_summary", "content": "hooks ran", "level": "info", "uuid": str(uuid.UUID(int=rng.getrandbits(128))), "timestamp": clock.tick()}


def codex_lines(rng: random.Random):
    clock = Clock(rng)
    session = str(uuid.UUID(int=rng.getrandbits(128)))
    stamp = clock.tick()
    yield {"timestamp": stamp, "type": "session_meta", "payload": {"id": session, "timestamp": stamp, "cwd": "/home/dev/shop", "originator": "codex_cli_rs", "cli_version": "0.46.0", "instructions": output_text(rng, 3000), "git": {"commit_hash": "9f2c1d0a7b3e4f5a6b7c8d9e0f1a2b3c4d5e6f70", "branch": "main", "repository_url": "https://github.com/example/shop.git"}}}
    totals = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0, "total_tokens": 0}
    while True:
        prompt = words(rng, lognormal(rng, 25, 1.0, 2000))
        stamp = clock.tick()
        yield {"timestamp": stamp, "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}}
        yield {"timestamp": stamp, "type": "event_msg", "payload": {"type": "user_message", "message": prompt, "kind": "plain"}}
        yield {"timestamp": stamp, "type": "turn_context", "payload": {"cwd": "/home/dev/shop", "approval_policy": "on-request", "sandbox_policy": {"mode": "workspace-write", "network_access": False}, "model": "gpt-5-codex", "summary": "auto"}}
        for _ in range(rng.randint(1, 15)):
            summary = "**" + words(rng, rng.randint(3, 8)) + "**"
            stamp = clock.tick()
            yield {"timestamp": stamp, "type": "event_msg", "payload": {"type": "agent_reasoning", "text": summary}}
            yield {"timestamp": stamp, "type": "response_item", "payload": {"type": "reasoning", "summary": [{"type": "summary_text", "text": summary}], "content": None, "encrypted_content": "gAAAAAB" + base64.urlsafe_b64encode(rng.randbytes(lognormal(rng, 1500, 0.6, 20000))).decode()}}
            call = "call_" + "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789") for _ in range(24))
            if rng.random() < 0.8:
                yield {"timestamp": stamp, "type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": orjson.dumps({"command": ["bash", "-lc", rng.choice(["ls", "rg discount src", "npm test", "sed -n '1,200p' src/cart.ts", "git status"])], "workdir": "/home/dev/shop"}).decode(), "call_id": call}}
                out = output_text(rng, lognormal(rng, 600, 1.7, 400000))
                yield {"timestamp": clock.tick(), "type": "response_item", "payload": {"type": "function_call_output", "call_id": call, "output": orjson.dumps({"output": out, "metadata": {"exit_code": 0, "duration_seconds": round(rng.random(), 1)}}).decode()}}
            else:
                yield {"timestamp": stamp, "type": "response_item", "payload": {"type": "custom_tool_call", "status": "completed", "call_id": call, "name": "apply_patch", "input": "*** Begin Patch\n*** Update File: src/cart.ts\n@@\n-" + output_text(rng, 300).replace("\n", "\n-") + "\n+" + output_text(rng, 300).replace("\n", "\n+") + "\n*** End Patch"}}
                yield {"timestamp": clock.tick(), "type": "response_item", "payload": {"type": "custom_tool_call_output", "call_id": call, "output": orjson.dumps({"output": "Success. Updated the following files:\nM src/cart.ts\n", "metadata": {"exit_code": 0, "duration_seconds": 0.0}}).decode()}}
            last = {"input_tokens": rng.randint(1000, 30000), "cached_input_tokens": rng.randint(0, 20000), "output_tokens": rng.randint(10, 2000), "reasoning_output_tokens": rng.randint(0, 1500)}
            last["cached_input_tokens"] = min(last["cached_input_tokens"], last["input_tokens"])
            last["total_tokens"] = last["input_tokens"] + last["output_tokens"]
            for key in totals:
                totals[key] += last[key]
            yield {"timestamp": clock.tick(), "type": "event_msg", "payload": {"type": "token_count", "info": {"total_token_usage": dict(totals), "last_token_usage": last, "model_context_window": 272000}, "rate_limits": {"primary": {"used_percent": 10.0, "window_minutes": 299, "resets_in_seconds": 1000}}}}
        answer = words(rng, lognormal(rng, 80, 1.0, 4000))
        stamp = clock.tick()
        yield {"timestamp": stamp, "type": "event_msg", "payload": {"type": "agent_message", "message": answer}}
        yield {"timestamp": stamp, "type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]}}


GENERATORS = {"claude-code": claude_lines, "codex": codex_lines}


def generate(kind: str, size: int, path: str, seed: int = 1) -> int:
    rng = random.Random(seed)
    written = 0
    lines = GENERATORS[kind](rng)
    with open(path, "wb") as out:
        for record in lines:
            data = orjson.dumps(record) + b"\n"
            out.write(data)
            written += len(data)
            if written >= size:
                break
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=sorted(GENERATORS))
    parser.add_argument("size", help="e.g. 200MB, 1GB")
    parser.add_argument("path")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    written = generate(args.kind, parse_size(args.size), args.path, args.seed)
    print(f"{args.path}: {written / 1e6:.1f} MB", file=sys.stderr)


if __name__ == "__main__":
    main()
