"""The current branch of one ChatGPT conversation tree.

A conversation's ``mapping`` is a tree of nodes ``{id, message, parent,
children}``.  Regenerated answers and edited prompts are sibling branches;
``current_node`` names the leaf of the branch the user last saw.  The branch
is found by walking ``parent`` pointers up from that leaf: ``children``
lists can disagree with the parent pointers in real files, the key order of
``mapping`` means nothing, and the current child is not always the last one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Branch:
    """Node ids from the root to the leaf, and what the walk had to work around."""

    node_ids: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)  # node ids whose node is not an object


def _time(node: Any) -> float:
    message = node.get("message") if isinstance(node, dict) else None
    value = message.get("create_time") if isinstance(message, dict) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else float("-inf")


def choose_leaf(mapping: dict[str, Any]) -> str | None:
    """The leaf to use when ``current_node`` is missing or unknown.

    A leaf is a node that no other node names as its parent (``children``
    lists are not trusted).  The leaf whose message was created last wins;
    among leaves without a time, the last one in document order.
    """
    parents = {node.get("parent") for node in mapping.values() if isinstance(node, dict)}
    best: str | None = None
    best_time = float("-inf")
    for node_id, node in mapping.items():
        if node_id in parents:
            continue
        when = _time(node)
        if best is None or when >= best_time:
            best, best_time = node_id, when
    return best


def current_branch(mapping: dict[str, Any], current_node: Any) -> Branch:
    branch = Branch()
    if not mapping:
        return branch
    leaf = current_node if isinstance(current_node, str) and current_node in mapping else None
    if leaf is None:
        leaf = choose_leaf(mapping)
        if current_node is None:
            branch.notes.append("the conversation names no current_node; the most recent leaf was followed")
        else:
            branch.notes.append(f"current_node {current_node!r} is not in the mapping; the most recent leaf was followed")
        if leaf is None:
            # Every node is some node's parent: a cycle with no leaf at all.
            leaf = next(iter(mapping))
    seen: set[str] = set()
    node_id: Any = leaf
    path: list[str] = []
    while node_id is not None:
        if not isinstance(node_id, str) or node_id not in mapping:
            branch.notes.append(f"parent {node_id!r} is not in the mapping; the branch starts below it")
            break
        if node_id in seen:
            branch.notes.append(f"parent pointers loop back to node {node_id!r}; the branch was cut there")
            break
        seen.add(node_id)
        path.append(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            branch.broken.append(node_id)
            break
        node_id = node.get("parent")
    path.reverse()
    branch.node_ids = path
    return branch


def count_messages(mapping: dict[str, Any]) -> int:
    """How many nodes of the whole tree carry a message."""
    return sum(1 for node in mapping.values() if isinstance(node, dict) and node.get("message") is not None)
