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
from sessionport.model import session_event
from sessionport.errors import UsageError
from sessionport.registry import Exporter
from sessionport.render.options import COMMON_OPTIONS, RenderOptions
from sessionport.render.session import (
    SessionTracker,
    announced_agents,
    extra_metadata,
    feed,
    header_facts,
    parent_call,
    session_title,
    spawned_agent,
    turn_label_of,
    _TURN_LABELS,
)
from sessionport.render.markup import render_markdown
from sessionport.render.text import ChunkedWriter, clean_text, count_lines, plain_label
from sessionport.render.html_assets import JS, content_security_policy, page_css
from sessionport.render.html_blocks import (
    _PLAIN,
    OPEN_DIFF_LINES,
    collapsed,
    command_html,
    esc,
    facts_list,
    gist,
    images_html,
    markdown_block,
    message_head,
    output_html,
    plain_block,
    result_head,
    side_anchor,
    tool_input_html,
    unit_summary,
)
from sessionport.render.commands import is_caveat, parse_command
from sessionport.render.pairing import PendingCalls
from sessionport.render.tools import first_line as _first_line, view_tool_call

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


MAX_TOC = 500  # prompts listed per session; past it the list says how many more
TOC_LABEL = 90
UNIT_JOIN = 1 << 14  # a unit smaller than this (rendered characters) is written as one piece
MAX_SPAWNS = 1000  # Task/Agent prompts remembered to link a subagent run to its call
MAX_NAMES = 256
_NAMES: dict = {}  # tool name -> its escaped text (a few names name every call)


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
        self.embed = options.embed_images
        page = ChunkedWriter(out, self.CHUNK)
        self.emit, self.flush = page.emit, page.flush
        self.pending = PendingCalls(self._write_unit, self.emit)
        self.agents: set[str] = set()  # anchors of subagent sessions written or announced
        self._session_state()

    def _session_state(self) -> None:
        self.prompts: list[tuple[str, str]] = []  # (dom id, label) for the table of contents
        self.more_prompts = 0
        self.tool_calls = self.tool_errors = self.commands = 0
        self.spawns: dict = {}  # Task prompt -> call id
        self.open_command: str | None = None

    def _page(self, title: str) -> None:
        if not self.started:
            self.started = True
            self.emit(PAGE_HEAD.format(csp=esc(content_security_policy()), title=esc(title), css=page_css()))

    def start(self, session: dict) -> None:
        self.finish()
        number = len(self.sessions) + 1
        title = session_title(session, number)
        self._page(title)
        self.sessions.append((title, str(session.get("source") or "")))
        self.tracker, self.turn, self.number = SessionTracker(heading=title), None, 0
        self.dom_prefix = f"s{number}-m"
        self._session_state()
        sid = f"s{number}"
        parts = [f'<section class="session" id="{sid}">', '<header class="session-head">', f'<h1><a href="#{sid}">{esc(title)}</a></h1>']
        own, parent_id = parent_call(session)
        self.agents.update(announced_agents(session))
        if own:
            self.agents.add(own)
            link = self.pending.link_of(parent_id)
            back = f' · <a href="#{link}">spawned by this call ↑</a>' if link else ""
            parts.append(f'<p class="spawn" id="{own}">Subagent session{back}</p>')
        parts.append(facts_list(header_facts(session)))
        extra = extra_metadata(session)
        if extra:
            parts.append(collapsed("Metadata", facts_list(extra)))
        parts.append('</header>\n<div class="msgs">\n')
        self.emit("".join(parts))

    def end_event(self, event: dict) -> None:
        if self.tracker is not None:
            self.tracker.end = event

    def finish(self) -> None:
        if self.tracker is None:
            return
        self._close_command()
        self.pending.flush()
        parts = self.tracker.summary_parts()
        title, source = self.sessions[-1]
        day = self.tracker.first.strftime("%Y-%m-%d") if self.tracker.first else ""
        self.sessions[-1] = (title, " · ".join(p for p in (source, day, parts[0]) if p))
        notes = "".join(f"<p>{esc(n)}</p>" for n in self.tracker.notes())
        self.emit(f'</div>\n<footer class="session-end"><p>End of session: {esc(" · ".join(parts))}</p>{notes}</footer>\n')
        self.emit(self._session_nav(parts))
        self.emit("</section>\n")
        self.tracker = None

    def _session_nav(self, parts: list[str]) -> str:
        """Counts and the table of contents of the session's prompts, written
        after the messages (only then known) and shown above them by CSS."""
        counts = [parts[0]]
        if self.tool_calls:
            counts.append(f"{self.tool_calls:,} tool call{'s' if self.tool_calls != 1 else ''}" + (f" ({self.tool_errors:,} failed)" if self.tool_errors else ""))
        if self.commands:
            counts.append(f"{self.commands:,} command{'s' if self.commands != 1 else ''}")
        counts += [p for p in parts[1:] if p.startswith("tokens")]
        nav = [f'<aside class="session-nav"><p class="counts">{esc(" · ".join(counts))}</p>']
        if len(self.prompts) > 1:
            total = len(self.prompts) + self.more_prompts
            items = "".join(f'<li><a href="#{dom}">{esc(label)}</a></li>' for dom, label in self.prompts)
            more = f'<li class="more">… and {self.more_prompts:,} more</li>' if self.more_prompts else ""
            is_open = " open" if total <= 12 else ""
            nav.append(f'<details class="toc"{is_open}><summary>{total:,} prompt{"s" if total != 1 else ""}</summary><ol>{items}{more}</ol></details>')
        nav.append("</aside>\n")
        return "".join(nav)

    # messages ---------------------------------------------------------------

    def message(self, message: dict) -> None:
        tracker = self.tracker
        if tracker is None:
            self.start(session_event("unknown"))
            tracker = self.tracker
        # message_parts, inlined: this runs for every message
        text = message.get("text")
        if text.__class__ is not str:
            text = ""
        meta = message.get("meta")
        if meta.__class__ is not dict:
            meta, kind = None, "text"
        else:
            kind = meta.get("kind", "text")
            if kind.__class__ is not str:
                kind = "text"
        shown = self.show_all or self.options.shows(message)
        tracker.see(message, shown, meta)
        if not shown:
            return
        self.number = number = self.number + 1
        dom_id = f"{self.dom_prefix}{number}"
        role = message.get("role")
        source_id = message.get("id")
        sidechain = False
        command = parse_command(text) if text[:1] == "<" and role == "user" and kind == "text" else None
        if self.open_command is not None and (command is None or command.kind != "output"):
            self._close_command()
        if meta:
            if meta.get("injected"):
                self.turn = None
                lines = count_lines(text)
                if is_caveat(text):
                    label = "Local command caveat"
                else:
                    label = f"Injected context · {role or 'message'} · {lines:,} line{'s' if lines != 1 else ''}"
                body = side_anchor(dom_id, source_id) + collapsed(label, plain_block(text))
                self.pending.text(f'<article class="msg note injected" id="{dom_id}" data-kind="injected">{body}</article>\n')
                return
            sidechain = bool(meta.get("sidechain"))
        turn = _TURN_LABELS.get((role, kind, sidechain)) if role.__class__ is str else None
        if turn is None:
            turn = turn_label_of(role, kind, sidechain)
        if turn != self.turn:
            self.turn = turn
            head = message_head(turn, message.get("timestamp"), dom_id, source_id)
        elif source_id is None:
            # every message can be linked to, not only the first of a turn
            head = f'<a class="anchor side" href="#{dom_id}" title="link to this message">#</a>'
        elif source_id.__class__ is str and _PLAIN(source_id) is None:  # side_anchor, inlined: an id esc leaves as it is
            head = f'<a class="anchor side" href="#{dom_id}" title="message id {source_id}">#</a>'
        else:
            head = side_anchor(dom_id, source_id)
        extra_css = " sidechain" if sidechain else ""
        if kind == "tool_use":
            self._tool_call(message, text, dom_id, head, extra_css)
            return
        if kind == "tool_result":
            self._tool_result(message, text, dom_id, head, extra_css)
            return
        if message.get("toolName") is not None:
            self._tool_call(message, text, dom_id, head, extra_css)
            return
        if command is not None:
            self._command(command, dom_id, head, extra_css)
            return
        if kind == "thinking":  # collapsed(), inlined
            # markdown_block, inlined
            if text and not text.isspace():
                rendered = f'<div class="md">{render_markdown(clean_text(text))}</div>'
            elif meta and meta.get("encryptedContent"):
                rendered = '<p class="empty">(reasoning kept encrypted: only the model\'s API reads it)</p>'
            else:
                rendered = '<p class="empty">(empty message)</p>'
            css, body = "thinking", f"<details><summary>Thinking{gist(text)}</summary>{rendered}</details>"
        elif kind in ("summary", "compaction") or role == "system":
            label = kind.capitalize() if kind in ("summary", "compaction") else "System message"
            css, body = "note", collapsed(label, markdown_block(text))
        else:
            css = "user" if role == "user" else "assistant"
            if role == "user" and not sidechain and text and not text.isspace():  # text.strip(), without its copy
                self._toc(dom_id, text)
                # a new prompt: calls still waiting are not answered any more
                self.pending.flush()
            spawned = self._spawned_by(text) if sidechain and role == "user" else ""
            media = images_html(message) if self.embed and "media" in message else ""
            body = f'{spawned}<div class="bubble">{markdown_block(text)}{media}</div>'
        article = f'<article class="msg {css}{extra_css}" id="{dom_id}" data-kind="{_KIND_ATTRS.get(kind) or esc(kind)}">{head}{body}</article>\n'
        if self.pending.queue:
            self.pending.text(article)
        else:
            self.emit(article)

    def _toc(self, dom_id: str, text: str) -> None:
        if len(self.prompts) >= MAX_TOC:
            self.more_prompts += 1
            return
        label = plain_label(text)
        if len(label) > TOC_LABEL:
            label = label[: TOC_LABEL - 1] + "…"
        self.prompts.append((dom_id, label))

    # tool calls and their results as one unit -----------------------------------

    def _tool_call(self, message: dict, text: str, dom_id: str, head: str, extra_css: str) -> None:
        self.tool_calls += 1
        name = str(message.get("toolName") or "tool")
        view = view_tool_call(message.get("toolName"), message.get("toolInput"), text)
        if view.kind == "shell":  # tool_input_html, its commonest case inlined
            command = esc(view.body)
            body = f'<pre class="sh"><span class="prompt">$ </span>{command}</pre>'
            # the summary is the command's first line (cut with "…"): when
            # the command needs no escaping, neither does it
            brief = view.summary if command is view.body else esc(view.summary)
        else:
            body, brief = tool_input_html(view), esc(view.summary)
        call_id = message.get("toolCallId")
        if call_id is None:
            id_note = ""
        else:  # an id of letters, digits and "_" needs no escaping (esc's scan costs more)
            id_note = f'<p class="cut">call id {call_id if call_id.__class__ is str and call_id.isidentifier() else esc(call_id)}</p>'
        # A short edit is what a reader most wants to see: show it open.
        is_open = view.expand and view.body.count("\n") < OPEN_DIFF_LINES
        piece = (dom_id, head, name, brief, body + id_note, is_open, extra_css)  # brief escaped
        if view.kind == "markdown" and isinstance(message.get("toolInput"), dict):
            prompt = message["toolInput"].get("prompt")
            if isinstance(prompt, str) and prompt.strip() and call_id is not None:
                if len(self.spawns) >= MAX_SPAWNS:
                    self.spawns.pop(next(iter(self.spawns)))
                # a digest of the prompt, not the prompt: up to MAX_SPAWNS are kept
                self.spawns[hash(" ".join(prompt.split()))] = (call_id, dom_id)
        self.pending.call(call_id, piece, len(body) + len(head) + 200, link=dom_id)

    def _tool_result(self, message: dict, text: str, dom_id: str, head: str, extra_css: str) -> None:
        error = bool(message.get("isError"))
        self.tool_errors += error
        output, lines = output_html(text, self.options.max_output)
        if self.embed and "media" in message:
            output += (images_html(message),)
        meta = message.get("meta")
        agent = spawned_agent(meta) if meta.__class__ is dict and "spawnedAgentId" in meta else None
        if agent in self.agents:
            output += (f'<p class="spawn"><a href="#{agent}">subagent session ↓</a></p>',)
        elif agent:
            output += (f'<p class="spawn">subagent {esc(meta["spawnedAgentId"])}: its session is not in this document</p>',)

        call_id = message.get("toolCallId")
        if self.pending.result(call_id, (dom_id, output, error, lines), sum(map(len, output))):
            return
        # no call waits for it: on its own, linked to its call when that was written
        link = self.pending.link_of(call_id)
        note = f'<a class="to-call" href="#{link}">result of the call above ↑</a>' if link else (f'<span class="brief">call id {esc(call_id)}</span>' if call_id is not None else "")
        name = message.get("toolName")
        summary = unit_summary(str(name) if name else ("error" if error else "output"), _first_line(text)[:160] or "(no output)", error, lines, True)
        css = "tool result error" if error else "tool result"
        self.pending.text(f'<article class="msg {css}{extra_css}" id="{dom_id}" data-kind="tool_result">{head}<details>{summary}{note and "<p>" + note + "</p>"}{"".join(output)}</details></article>\n')

    def _write_unit(self, unit) -> None:
        call = unit.call
        if call[0] == "command":
            return self._write_command(unit)
        dom_id, head, name, brief, body, is_open, extra_css = call
        result = unit.result
        # unit_summary, inlined: this runs for every call
        if result is None:
            error, tail = False, '<span class="lines">no result</span>'
        else:
            error, lines = bool(result[2]), result[3]
            tail = ('<span class="badge err">error</span>' if error else "") + (f'<span class="lines">{lines:,} lines</span>' if lines > 1 else "")
        escaped_name = _NAMES.get(name)
        if escaped_name is None:
            escaped_name = esc(name)
            if len(_NAMES) < MAX_NAMES:  # names come from the input: a bounded cache
                _NAMES[name] = escaped_name
        summary = f'<summary><span class="badge">{escaped_name}</span><span class="brief">{brief}</span>{tail}</summary>'
        extra = "".join(unit.extra) if unit.extra else ""
        css = "tool call error" if error else "tool call"
        opened = " open" if is_open else ""
        opening = f'<article class="msg {css}{extra_css}" id="{dom_id}" data-kind="tool_use">{head}<details class="unit"{opened}>{summary}<div class="tool-in">{body}</div>{extra}'
        if result is None:
            self.emit(opening + '<p class="empty no-result">no result in the transcript</p></details></article>\n')
        elif unit.size < UNIT_JOIN:
            # one piece for the page: a join of a few short strings costs
            # less than handing each to the writer
            out_id = result[0]
            out_head = (
                result_head(out_id, error)
                if error
                else f'<div class="tool-out" id="{out_id}"><div class="out-head"><span class="badge">output</span><a class="anchor" href="#{out_id}" title="link to this message">#</a></div>'
            )  # result_head of an output, inlined
            self.emit(f'{opening}{out_head}{"".join(result[1])}</div></details></article>\n')
        else:  # outputs run to megabytes: written as they are, not copied into one
            emit = self.emit
            emit(opening)
            emit(result_head(result[0], error))
            for piece in result[1]:
                emit(piece)
            emit("</div></details></article>\n")

    def _spawned_by(self, text: str) -> str:
        """A subagent's first prompt: link it to the call that spawned it, and
        the call (still waiting for its result) to it."""
        found = self.spawns.pop(hash(" ".join(text.split())), None)
        if found is None:
            return ""
        call_id, call_dom = found
        unit = self.pending.waiting_unit(call_id)
        if unit is not None:
            unit.extra.append(f'<p class="spawn"><a href="#s{len(self.sessions)}-m{self.number}">subagent run ↓</a></p>')
        return f'<p class="spawn"><a href="#{call_dom}">↑ spawned by this call</a></p>'

    # Claude Code commands -------------------------------------------------------

    def _command(self, command, dom_id: str, head: str, extra_css: str) -> None:
        if command.kind == "output" and self.open_command is not None:
            key, self.open_command = self.open_command, None
            self.pending.result(key, (dom_id, command), len(command.stdout) + len(command.stderr))
            return
        if command.kind == "command":
            self.commands += 1
            self.open_command = f"\0command {dom_id}"
            self.pending.call(self.open_command, ("command", dom_id, head, extra_css, command), 200)
            self._toc(dom_id, command.label + (" " + command.args if command.args else ""))
            return
        # output with no command before it
        body = command_html("output", "", command.stdout, command.stderr, command.shell)
        self.pending.text(f'<article class="msg user command{extra_css}" id="{dom_id}" data-kind="command">{head}<div class="bubble">{body}</div></article>\n')

    def _close_command(self) -> None:
        if self.open_command is not None:
            key, self.open_command = self.open_command, None
            self.pending.result(key, None, 0)

    def _write_command(self, unit) -> None:
        _, dom_id, head, extra_css, command = unit.call
        out = unit.result[1] if unit.result else None
        body = command_html(command.label, command.args, out.stdout if out else "", out.stderr if out else "", command.shell)
        anchor = f'<span class="out-anchor" id="{unit.result[0]}">{side_anchor(unit.result[0], None)}</span>' if unit.result else ""
        self.emit(f'<article class="msg user command{extra_css}" id="{dom_id}" data-kind="command">{head}<div class="bubble">{body}{anchor}</div></article>\n')

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
    options = RenderOptions.from_options(ctx.options)
    if options.image_dir is not None:
        raise UsageError(f"--images {options.images!r}: the HTML page takes 'placeholder' or 'embed' (a directory of images is for Markdown)")
    writer = HtmlWriter(out, options)
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
