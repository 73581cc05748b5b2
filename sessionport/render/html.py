"""``html``: one self-contained page to read or share a transcript.

The page is written while the stream is read, one message at a time
(gathered into writes of about 64K characters), so memory stays flat on a
multi-gigabyte input.  What can only be known at the
end goes at the end: each session closes with a summary line (time span,
models, tokens), and with several sessions the sidebar listing them is
written after the last one (one short entry per session is kept) and placed
on the left by CSS.  Inline CSS and a small script are the only code; the
page fetches nothing, reads fine with scripts off, and its Content Security
Policy allows no other script.
"""

from __future__ import annotations

from typing import BinaryIO, Iterable

from sessionport.context import WriteContext
from sessionport.registry import Exporter
from sessionport.render.options import COMMON_OPTIONS, RenderOptions
from sessionport.render.session import SessionTracker, extra_metadata, feed, header_facts, session_title, shown_parts, turn_label_of
from sessionport.render.text import ChunkedWriter, count_lines
from sessionport.render.html_assets import CSS, JS, content_security_policy
from sessionport.render.html_blocks import collapsed, esc, facts_list, gist, message_head, plain_block, rich_text, side_anchor, tool_call, tool_result

# data-kind values that need no escaping
_KIND_ATTRS = {kind: kind for kind in ("text", "thinking", "tool_use", "tool_result", "summary", "compaction")}

PAGE_HEAD = (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
    '<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
    '<meta name="color-scheme" content="light dark">\n<meta name="referrer" content="no-referrer">\n'
    '<meta name="generator" content="sessionport">\n<title>{title}</title>\n<style>{css}</style>\n</head>\n<body>\n'
    '<header class="topbar"><div class="brand">{title}<small>sessionport</small></div>'
    '<div class="controls" id="controls" hidden><input type="search" id="q" placeholder="Filter messages  ( / )" '
    'aria-label="Filter messages"><button type="button" id="toggle">Expand all</button><span id="hits"></span></div></header>\n'
    '<main id="main">\n'
)


class HtmlWriter:
    CHUNK = 1 << 16

    def __init__(self, out: BinaryIO, options: RenderOptions) -> None:
        self.out = out
        self.options = options
        self.started = False
        self.sessions: list[tuple[str, str]] = []  # (title, one-line summary) for the sidebar
        self.tracker: SessionTracker | None = None
        self.turn: str | None = None
        self.number = 0
        self.show_all = options.tools and options.thinking and options.injected
        page = ChunkedWriter(out, self.CHUNK)
        self.emit, self.flush = page.emit, page.flush

    def _page(self, title: str) -> None:
        if not self.started:
            self.started = True
            self.emit(PAGE_HEAD.format(csp=esc(content_security_policy()), title=esc(title), css=CSS))

    def start(self, session: dict) -> None:
        self.finish()
        number = len(self.sessions) + 1
        title = session_title(session, number)
        self._page(title)
        self.sessions.append((title, str(session.get("source") or "")))
        self.tracker, self.turn, self.number = SessionTracker(), None, 0
        sid = f"s{number}"
        parts = [f'<section class="session" id="{sid}">', '<header class="session-head">', f'<h1><a href="#{sid}">{esc(title)}</a></h1>']
        parts.append(facts_list(header_facts(session)))
        extra = extra_metadata(session)
        if extra:
            parts.append(collapsed("Metadata", facts_list(extra)))
        parts.append("</header>\n")
        self.emit("".join(parts))

    def end_event(self, event: dict) -> None:
        if self.tracker is not None:
            self.tracker.end = event

    def finish(self) -> None:
        if self.tracker is None:
            return
        parts = self.tracker.summary_parts()
        title, source = self.sessions[-1]
        day = self.tracker.first.strftime("%Y-%m-%d") if self.tracker.first else ""
        self.sessions[-1] = (title, " · ".join(p for p in (source, day, parts[0]) if p))
        notes = "".join(f"<p>{esc(n)}</p>" for n in self.tracker.notes())
        self.emit(f'<footer class="session-end"><p>End of session: {esc(" · ".join(parts))}</p>{notes}</footer>\n</section>\n')
        self.tracker = None

    def message(self, message: dict) -> None:
        parts = shown_parts(self, message)
        if parts is None:
            return
        meta, kind, text = parts
        self.number += 1
        dom_id = f"s{len(self.sessions)}-m{self.number}"
        role = message.get("role")
        source_id = message.get("id")
        sidechain = False
        if meta:
            if meta.get("injected"):
                self.turn = None
                lines = count_lines(text)
                label = f"Injected context · {role or 'message'} · {lines:,} line{'s' if lines != 1 else ''}"
                body = side_anchor(dom_id, source_id) + collapsed(label, plain_block(text))
                self.emit(f'<article class="msg note injected" id="{dom_id}" data-kind="injected">{body}</article>\n')
                return
            sidechain = bool(meta.get("sidechain"))
        turn = turn_label_of(role, kind, sidechain)
        if turn != self.turn:
            self.turn = turn
            head = message_head(turn, message.get("timestamp"), dom_id, source_id)
        else:
            # every message can be linked to, not only the first of a turn
            head = side_anchor(dom_id, source_id)
        if kind == "tool_use" or (kind != "tool_result" and message.get("toolName") is not None):
            css, body = "tool call", tool_call(message, text)
        elif kind == "tool_result":
            css = "tool result error" if message.get("isError") else "tool result"
            body = tool_result(message, text, self.options.max_output)
        elif kind == "thinking":
            css, body = "thinking", collapsed("Thinking", rich_text(text), gist(text))
        elif kind in ("summary", "compaction") or role == "system":
            label = kind.capitalize() if kind in ("summary", "compaction") else "System message"
            css, body = "note", collapsed(label, rich_text(text))
        else:
            css = "user" if role == "user" else "assistant"
            body = f'<div class="bubble">{rich_text(text)}</div>'
        if sidechain:
            css += " sidechain"
        self.emit(f'<article class="msg {css}" id="{dom_id}" data-kind="{_KIND_ATTRS.get(kind) or esc(kind)}">{head}{body}</article>\n')

    def close(self) -> None:
        self.finish()
        if not self.started:
            self._page("Empty transcript")
            self.emit('<p class="empty">This stream holds no sessions.</p>\n')
        self.emit("</main>\n")
        if len(self.sessions) > 1:
            items = "".join(
                f'<li><a href="#s{i}"><span class="t">{esc(title)}</span><span class="sub">{esc(sub)}</span></a></li>'
                for i, (title, sub) in enumerate(self.sessions, 1)
            )
            self.emit(f'<nav class="sidebar" aria-label="Sessions"><h2>{len(self.sessions)} sessions</h2><ol>{items}</ol></nav>\n')
        self.emit(f"<script>{JS}</script>\n</body>\n</html>\n")
        self.flush()


def write(events: Iterable[dict], out: BinaryIO, ctx: WriteContext) -> None:
    writer = HtmlWriter(out, RenderOptions.from_options(ctx.options))
    try:
        feed(events, writer)
        writer.close()
    finally:
        # what was rendered before an error reaches the output, as it did
        # when every message was written at once
        writer.flush()


EXPORTER = Exporter(
    name="html",
    description="one self-contained HTML page to read or share (collapsible tools, filter, light/dark, sidebar of sessions)",
    write=write,
    extension=".html",
    multi_session=True,
    options=COMMON_OPTIONS,
)
