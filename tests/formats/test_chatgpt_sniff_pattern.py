"""The ChatGPT sniffer's key pattern, literal first, finds what the look-behind-first one finds.

``_MAPPING_KEY`` starts with the literal ``"mapping"`` so that searching a
head of another format costs a scan for the literal, not a match attempt
at every byte; the look-behind that tells the key from an escaped quote
inside a string follows the literal.  Pinned to the pattern it replaces.
"""

from __future__ import annotations

import random
import re

from sessionport.formats.chatgpt.sniff import _MAPPING_KEY, sniff

_DEFINITION = re.compile(rb'(?<!\\)"mapping"\s*:\s*[{n]')


def test_the_key_pattern_matches_where_the_definition_does():
    rng = random.Random(11)
    atoms = [b'"mapping"', b'\\"mapping"', b"\\", b'"', b" ", b"\t", b":", b"{", b"n", b"[", b"x", b"\n", b"\\\\", b"mapping", b'"mapp']
    for _ in range(50000):
        head = b"".join(rng.choice(atoms) for _ in range(rng.randint(0, 14)))
        found, expected = _MAPPING_KEY.search(head), _DEFINITION.search(head)
        assert (found and found.span()) == (expected and expected.span()), head


def test_heads_score_as_before():
    assert sniff(b'{"title":"t","mapping":{"a":{"id":"a","children":[]}}}') == 90
    assert sniff(b'[{"title":"t","mapping":null}]') == 60
    assert sniff(b'{"text":"say \\"mapping\\": {"}') == 0
    assert sniff(b'{"type":"user","message":{"content":"x"}}\n' * 2000) == 0
