"""``markdown``: a transcript to read, commit next to code or keep in a vault.

Streaming: one message is held at a time.  A table of contents must come
before the sessions it lists, but the titles are only all known at the end
of the stream, so the body is written to a spooled temporary file (memory up
to 8 MiB, then disk) while a one-line entry per session is kept; at the end
the front matter and, for several sessions, the table of contents are
written, followed by the body copied from the spool.  Memory stays flat
whatever the input size; output appears when the input is read.

Without front matter, a document of one session has nothing in front of
its body, so the body goes straight to an output that can take it back
(a plain file written from where it stands, not appended to) or that
keeps nothing (``/dev/null``); only when a second session starts is what
was written read back into the spool and the output rewound to where the
document began, and an error rewinds it there too, as if it had been
spooled all along.  To a pipe, a terminal or a socket the body goes
straight out when the stream says, as its first session starts, that no
other session follows (see :func:`_stream_one_session`).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from typing import BinaryIO, Callable, Iterable

from sessionport.context import WriteContext
from sessionport.registry import Exporter
from sessionport.render.images import image_directory, write_image
from sessionport.render.options import COMMON_OPTIONS, FRONT_MATTER, RenderOptions
from sessionport.render.session import (
    SessionTracker,
    announced_agents,
    extra_metadata,
    format_time,
    header_facts,
    feed,
    parent_call,
    spawned_agent,
    parse_time,
    session_title,
    turn_label_of,
    _TURN_LABELS,
    _utc_seconds,
)
from sessionport.render.text import ChunkedWriter, count_lines, fence_for, trim_lines
from sessionport.render.tools import view_tool_call
from sessionport.render.markdown_blocks import _SPAN_WORK, clean, code_span, command_markdown, details, fenced, inline, message_markdown, summary_text
from sessionport.render.commands import is_caveat, parse_command
from sessionport.render.text import plain_label
from sessionport.render.pairing import PendingCalls, Unit
from sessionport.render.markdown_frontmatter import front_matter, iso_date, tag
from sessionport.io import spool_file
from sessionport.model import session_event

SPOOL_MEMORY = 8 << 20
TOOL_LANG = {"shell": "sh", "diff": "diff", "json": "json", "text": "text"}
LONG_OUTPUT_LINES = 30  # a longer tool output is collapsed
MAX_PROMPTS = 500  # prompts listed per session
PROMPT_LIST_MIN = 3  # a session with fewer prompts needs no list


class _TocEntry:
    __slots__ = ("anchor", "title", "source", "line", "session_id", "date", "prompts")

    def __init__(self, anchor: str, title: str, session: dict) -> None:
        self.anchor, self.title = anchor, title
        self.source = str(session.get("source") or "")
        self.session_id = session.get("sessionId")
        self.date = session.get("createdAt")
        self.line = ""
        self.prompts = 0


class MarkdownWriter:
    def __init__(self, emit: Callable[[str], None], options: RenderOptions, emit_all: Callable[[list[str]], None] | None = None) -> None:
        self.emit = emit
        # pieces written in one step (ChunkedWriter.emit_all), else one by one
        self.emit_all = emit_all if emit_all is not None else (lambda pieces: [emit(piece) for piece in pieces] and None)
        self.turn_heads: dict[str, str] = {}  # turn label -> "## label" as written
        self.call_heads: dict[str, str] = {}  # tool name -> "**Tool call:** `name`"
        self.options = options
        self.toc: list[_TocEntry] = []
        self.tracker: SessionTracker | None = None
        self.turn: str | None = None
        self.show_all = options.tools and options.thinking and options.injected
        self.pending = PendingCalls(self._write_unit, emit)
        self.open_command: str | None = None
        self.commands = 0
        self.prompts: list[str] = []
        self.more_prompts = 0
        self.image_dir: str | None = None  # where --images DIR writes (the directory as given)
        self.image_link = ""  # that directory as the document links it
        self.images_written = 0
        self.agents: set[str] = set()  # anchors of subagent sessions written or announced
        self.before_contents: Callable[[], None] | None = None  # called once, when a second session starts

    # sessions -------------------------------------------------------------

    def start(self, session: dict) -> None:
        self.finish()
        if self.toc and self.before_contents is not None:
            hook, self.before_contents = self.before_contents, None
            hook()
        number = len(self.toc) + 1
        anchor = f"session-{number}"
        title = session_title(session, number)
        self.toc.append(_TocEntry(anchor, title, session))
        self.tracker = SessionTracker(heading=title)
        self.turn = None
        self.prompts, self.more_prompts = [], 0
        lines = [f'<a id="{anchor}"></a>', "", f"# {inline(title)}", ""]
        own, parent_id = parent_call(session)
        self.agents.update(announced_agents(session))
        if own:
            self.agents.add(own)
            lines[0] += f'<a id="{own}"></a>'
            lines += ["*Subagent session*" + (f" · spawned by call {code_span(str(parent_id))}" if parent_id is not None else ""), ""]
        lines += [f"- **{label}:** {code_span(value) if label in ('Session', 'Directory', 'Source', 'Model') else inline(value)}" for label, value in header_facts(session)]
        self.emit("\n".join(lines) + "\n")
        extra = extra_metadata(session)
        if extra:
            body = "\n".join(f"- {inline(key)}: {code_span(value)}" for key, value in extra)
            self.emit("\n" + details("Metadata", body))
        self.emit("\n")

    def finish(self) -> None:
        if self.tracker is None:
            return
        self._close_command()
        self.pending.flush()
        tracker, entry = self.tracker, self.toc[-1]
        parts = tracker.summary_parts()
        if entry.date is None and tracker.first is not None:
            entry.date = tracker.first.isoformat()
        entry.line = " · ".join(parts)
        self.emit("\n---\n\n*End of session: " + inline(" · ".join(parts)) + "*\n")
        for note in tracker.notes():
            self.emit(f"\n> {inline(note)}\n")
        self.emit("\n")
        if len(self.prompts) + self.more_prompts >= PROMPT_LIST_MIN:
            # written after the session (only then complete); the table of
            # contents of several sessions links to it
            number = len(self.toc)
            total = len(self.prompts) + self.more_prompts
            lines = [f'<a id="prompts-{number}"></a>', "", f"**Prompts of this session ({total:,}):**", ""]
            lines += [f"{i}. [{inline(label)}](#prompt-{number}-{i})" for i, label in enumerate(self.prompts, 1)]
            if self.more_prompts:
                lines.append(f"\n*… and {self.more_prompts:,} more*")
            self.emit("\n".join(lines) + "\n\n")
            entry.prompts = total
        self.tracker = None

    def end_event(self, event: dict) -> None:
        if self.tracker is not None:
            self.tracker.end = event

    # messages -------------------------------------------------------------

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
        if kind == "thinking" and (not text or text.isspace()) and meta.get("encryptedContent"):
            return  # reasoning kept only encrypted (Codex, the Responses API): nothing to read
        role = message.get("role")
        command = parse_command(text) if text[:1] == "<" and role == "user" and kind == "text" else None
        if self.open_command is not None and (command is None or command.kind != "output"):
            self._close_command()
        sidechain = False
        if meta:
            if meta.get("injected"):
                self.turn = None
                if is_caveat(text):
                    label = "Local command caveat"
                else:
                    lines = count_lines(text)
                    label = summary_text(f"Injected context ({message.get('role', 'message')}, {lines:,} line{'s' if lines != 1 else ''})")
                self.pending.text(details(label, fenced(text, "text")) + "\n")
                return
            sidechain = bool(meta.get("sidechain"))
        label = _TURN_LABELS.get((role, kind, sidechain)) if role.__class__ is str else None
        if label is None:
            label = turn_label_of(role, kind, sidechain)
        head = ""
        if label != self.turn:
            self.turn = label
            heading = self.turn_heads.get(label)
            if heading is None:
                heading = self.turn_heads[label] = f"## {inline(label)}"
            stamp = message.get("timestamp")
            plain = _utc_seconds(stamp) if stamp.__class__ is str else None
            if plain is not None:  # digits, "-", ":" and spaces: inline() leaves it as it is
                head = f"{heading} · {plain} UTC\n\n"
            else:
                when = format_time(stamp) if stamp is not None else ""
                head = heading + (f" · {inline(when)}" if when else "") + "\n\n"
        if kind == "tool_use" or (kind != "tool_result" and message.get("toolName") is not None):
            call = self._tool_call(message, text)
            call[0] = head + call[0]
            self.pending.call(message.get("toolCallId"), call, 0)  # no link: a late result is not linked to its call here
        elif kind == "tool_result":
            result = self._tool_result(message, text)
            if "media" in message:
                result.append(self._images(message))
            agent = spawned_agent(meta) if meta and "spawnedAgentId" in meta else None
            if agent in self.agents:
                result.append(f"[Subagent session ↓](#{agent})\n\n")
            elif agent:
                result.append(f"*Subagent {code_span(str(meta['spawnedAgentId']))}: its session is not in this document*\n\n")
            pending, call_id = self.pending, message.get("toolCallId")
            queue = pending.queue
            unit = queue[0] if len(queue) == 1 else None
            if unit.__class__ is Unit and unit.key == call_id and call_id.__class__ is str and unit.call.__class__ is list and pending.waiting.get(call_id) is unit:
                # the usual case, the result right after its call and nothing
                # else held: what pending.result and _write_unit do for it
                del pending.waiting[call_id]
                queue.clear()
                pending.chars -= unit.size
                self.emit_all(unit.call + result)
            elif not pending.result(call_id, result, sum(map(len, result))):
                pending.text(head + "".join(result))
        elif command is not None:
            self._command(command, head)
        elif kind == "thinking":
            # details("Thinking", ...) + "\n", written at once unless calls wait
            block = f"{head}<details>\n<summary>Thinking</summary>\n\n{message_markdown(text).rstrip()}\n\n</details>\n\n"
            if self.pending.queue:
                self.pending.text(block)
            else:
                self.emit(block)
        elif kind in ("summary", "compaction"):
            self.pending.text(head + details(summary_text(kind.capitalize()), message_markdown(text)) + "\n")
        elif role == "system":
            self.pending.text(head + details("System message", fenced(text, "text")) + "\n")
        else:
            has_text = bool(text) and not text.isspace()  # text.strip(), without its copy
            if role == "user" and not sidechain and has_text:
                self.pending.flush()  # a new prompt: calls still waiting are not answered any more
                head = self._prompt_anchor(text) + head
            images = self._images(message) if "media" in message else ""
            block = head + (message_markdown(text) if has_text else "*(empty message)*") + "\n\n" + images
            if self.pending.queue:
                self.pending.text(block)
            else:
                self.emit(block)

    def _prompt_anchor(self, text: str) -> str:
        """An anchor for the prompts list written after the session."""
        if len(self.prompts) >= MAX_PROMPTS:
            self.more_prompts += 1
            return ""
        label = plain_label(text)
        self.prompts.append(label if len(label) <= 90 else label[:89] + "…")
        return f'<a id="prompt-{len(self.toc)}-{len(self.prompts)}"></a>\n\n'

    def _images(self, message: dict) -> str:
        """The images a message carries: inline or written to the image
        directory and linked (placeholders otherwise: the text has them)."""
        options = self.options
        if not (options.embed_images or options.image_dir):
            return ""
        from sessionport.model import human_size
        from sessionport.render.images import images_of

        lines = []
        for n, image in enumerate(images_of(message), 1):
            if not image.ok:
                lines.append(f"*(image {n} not shown: {inline(image.reason)})*")
                continue
            alt = f"image {n} ({image.mime}, {human_size(len(image.data or b''))})"
            if options.embed_images:
                lines.append(f"![{inline(alt)}]({image.data_url()})")
                continue
            self.images_written += 1
            name = write_image(self.image_dir or ".", self.images_written, image.extension, image.data or b"")
            target = "/".join((*self.image_link.split(os.sep), name)) if self.image_link else name
            lines.append(f"![{inline(alt)}](<{target}>)")
        return "\n\n".join(lines) + "\n\n" if lines else ""

    def _write_unit(self, unit) -> None:
        if unit.call.__class__ is tuple:  # a command and its output
            _, head, command = unit.call
            output = unit.result
            self.emit(head + command_markdown(command, output))
            return
        self.emit_all(unit.call if unit.result is None else unit.call + unit.result)

    def _tool_call(self, message: dict, text: str) -> list[str]:
        """The call as pieces, its input (a command, a diff, JSON) a piece of
        its own, as for results (see :meth:`_tool_result`)."""
        name = message.get("toolName")
        view = view_tool_call(name, message.get("toolInput"), text)
        head = self.call_heads.get(name) if name.__class__ is str else None
        if head is None:
            head = f"**Tool call:** {code_span(str(name or 'tool'))}"
            if name.__class__ is str and len(self.call_heads) < 256:
                self.call_heads[name] = head
        if view.summary and view.kind in ("diff", "markdown"):
            head += f" · {inline(view.summary)}"
        call_id = message.get("toolCallId")
        if call_id is not None:
            head += f" · `{call_id}`" if call_id.__class__ is str and call_id and _SPAN_WORK(call_id) is None else f" · {code_span(str(call_id))}"
        if view.kind == "read":
            detail = f" ({inline(view.detail)})" if view.detail else ""
            return [f"{head}\n\nRead {code_span(view.body)}{detail}\n\n"]
        if view.kind == "markdown":
            return [f"{head}\n\n" + details("Input", message_markdown(view.body)) + "\n"]
        if view.kind == "text" and not view.body.strip():
            return [head + "\n\n"]
        lang = re.sub(r"[^\w+.-]", "", view.detail) if view.kind == "code" else TOOL_LANG[view.kind]
        body = clean(view.body)  # fenced(view.body, lang, f"{head}\n\n", "\n"), in pieces
        fence = fence_for(body)
        return [f"{head}\n\n{fence}{lang}\n", body, f"\n{fence}\n\n"]

    def _tool_result(self, message: dict, text: str) -> list[str]:
        """The result as pieces written one after another: the output on its
        own (what :func:`fenced` or :func:`details` around it would give),
        since outputs run to megabytes and are mostly ASCII, which the
        writer encodes at memory speed unless joined to a heading's "·"."""
        label = "Result (error)" if message.get("isError") else "Result"
        if not text:
            call_id = message.get("toolCallId")
            return [f"**{label}:** {code_span(str(call_id))} *(no output)*\n\n" if call_id is not None else f"**{label}:** *(no output)*\n\n"]
        max_output = self.options.max_output
        if max_output is None:
            body, cut = text, 0
        else:
            body, cut = trim_lines(text, max_output)
        after = f"\n*… {cut:,} more line{'s' if cut != 1 else ''} cut (--max-output {max_output})*\n\n" if cut else "\n"
        lines = body.count("\n") + 1 if body else 0  # count_lines, inlined
        body = clean(body)
        fence = fence_for(body)
        if lines > LONG_OUTPUT_LINES:  # the label is plain text: summary_text(label) is the label
            return [f"<details>\n<summary>{label} · {lines:,} lines</summary>\n\n{fence}text\n", body, f"\n{fence}\n\n</details>\n{after}"]
        call_id = message.get("toolCallId")
        if call_id.__class__ is str and call_id and _SPAN_WORK(call_id) is None:  # code_span, inlined
            head = f"**{label}:** `{call_id}`"
        else:
            head = f"**{label}:** {code_span(str(call_id))}" if call_id is not None else f"**{label}:**"
        return [f"{head}\n\n{fence}text\n", body, f"\n{fence}\n{after}"]

    def _command(self, command, head: str) -> None:
        if command.kind == "output" and self.open_command is not None:
            key, self.open_command = self.open_command, None
            self.pending.result(key, command, len(command.stdout) + len(command.stderr))
            return
        if command.kind == "command":
            self.commands += 1
            self.open_command = f"\0command {self.commands}"
            self.pending.call(self.open_command, ("command", head, command), 200)
            return
        self.pending.text(head + command_markdown(None, command))

    def _close_command(self) -> None:
        if self.open_command is not None:
            key, self.open_command = self.open_command, None
            self.pending.result(key, None, 0)

    # the parts written last, in front ----------------------------------------

    def preamble(self) -> str:
        parts = []
        if self.options.front_matter:
            parts.append(self._front_matter())
        if len(self.toc) > 1:
            lines = [f"# {len(self.toc)} sessions", "", "## Contents", ""]
            for i, entry in enumerate(self.toc, 1):
                extra = " · ".join(x for x in (entry.source, entry.line) if x)
                prompts = f" · [{entry.prompts:,} prompts](#prompts-{i})" if entry.prompts else ""
                lines.append(f"{i}. [{inline(entry.title)}](#{entry.anchor})" + (f" — {inline(extra)}" if extra else "") + prompts)
            parts.append("\n".join(lines) + "\n\n")
        return "".join(parts)

    def _front_matter(self) -> str:
        if len(self.toc) == 1:
            entry = self.toc[0]
            return front_matter(
                [
                    ("title", entry.title),
                    ("date", iso_date(entry.date)),
                    ("source", entry.source),
                    ("id", entry.session_id if isinstance(entry.session_id, str) else None),
                    ("tags", ["sessionport", tag(entry.source)] if entry.source else ["sessionport"]),
                ]
            )
        sources = sorted({e.source for e in self.toc if e.source})
        dates = sorted((parse_time(e.date), iso_date(e.date)) for e in self.toc if parse_time(e.date) is not None)
        return front_matter(
            [
                ("title", f"{len(self.toc)} sessions"),
                ("date", dates[0][1] if dates else None),
                ("source", ", ".join(sources)),
                ("sessions", len(self.toc)),
                ("tags", ["sessionport", *(tag(s) for s in sources)]),
            ]
        )


BODY_CHUNK = 1 << 18


def write(events: Iterable[dict], out: BinaryIO, ctx: WriteContext) -> None:
    options = RenderOptions.from_options(ctx.options)
    if not options.front_matter:
        target = _direct_target(out)
        if target is not None:
            _write_direct(events, out, options, ctx, target)
            return
    with spool_file(SPOOL_MEMORY) as spool:
        body = ChunkedWriter(spool, BODY_CHUNK)
        writer = MarkdownWriter(body.emit, options, body.emit_all)
        if options.image_dir is not None:
            writer.image_dir, writer.image_link = image_directory(options.image_dir, ctx.name)
        if not options.front_matter and _is_stream(out):
            _stream_one_session(writer, body, out, ctx)
        feed(events, writer)
        writer.finish()
        body.flush()
        if body.out is not spool:  # streamed: the body is out already
            if len(writer.toc) > 1:
                out.write(("\n" + writer.preamble()).encode("utf-8", "replace"))
            return
        out.write(writer.preamble().encode("utf-8", "replace"))
        spool.seek(0)
        copy_body(spool, out)


def _is_stream(out: BinaryIO) -> bool:
    """Whether ``out`` is a pipe, a socket or a terminal: an output read as
    it is written, which cannot be rewound."""
    try:
        mode = os.fstat(out.fileno()).st_mode
    except (AttributeError, OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


class _Flushed:
    """An output that passes each chunk on at once (its buffer would keep
    up to a mebibyte from a reader at the other end of a pipe)."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out

    def write(self, data: bytes) -> int:
        written = self._out.write(data)
        self._out.flush()
        return written


def _stream_one_session(writer: MarkdownWriter, body: ChunkedWriter, out: BinaryIO, ctx: WriteContext) -> None:
    """To a pipe the body of a document of one session is written as it is
    rendered: it has nothing in front of it.  The number of sessions is
    known when the first one starts only when the stream says its file
    holds that session and the subagent sessions it announces (see
    :data:`sessionport.pipeline.stream.FILE_SESSION`) and it announces none;
    otherwise the body is spooled as for any output."""
    from sessionport.pipeline.stream import FILE_SESSION

    start = writer.start

    def first(session: dict) -> None:
        # feed() holds this function for every session: only the first decides
        writer.start = start
        if not writer.toc and session.get(FILE_SESSION) is True and not announced_agents(session):
            body.out = _Flushed(out)
            # a session the file was not expected to hold: what was
            # written stays, and the table of contents follows the body
            writer.before_contents = lambda: ctx.warn(
                "the input held more sessions than its first one announced; the Markdown body was streamed, so the table of contents is at its end"
            )
        start(session)

    writer.start = first


def _direct_target(out: BinaryIO) -> int | None:
    """Where a body written straight to ``out`` would begin: its offset when
    it is a plain file open to read and write that ends where the document
    begins (not appended to), -1 when it is the null device (it keeps
    nothing, so order does not matter); None when the body must be spooled
    (a pipe, a terminal, an in-memory stream, a file open only to write or
    to append)."""
    try:
        fd = out.fileno()
        info = os.fstat(fd)
        if stat.S_ISCHR(info.st_mode):
            return -1 if info.st_rdev == os.stat(os.devnull).st_rdev else None
        if not stat.S_ISREG(info.st_mode):
            return None
        import fcntl

        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        if flags & os.O_APPEND or flags & os.O_ACCMODE != os.O_RDWR:  # the body is read back from it
            return None
        start = out.tell()
        # nothing after the document: an error cuts the file back to where
        # it began, which loses nothing the file held
        return start if info.st_size == start else None
    except (AttributeError, OSError, ValueError, ImportError):
        return None


def _write_direct(events: Iterable[dict], out: BinaryIO, options: RenderOptions, ctx: WriteContext, start: int) -> None:
    """:func:`write` with the body written to ``out`` as it comes (see the
    module doc); ``start`` is what :func:`_direct_target` said."""
    body = ChunkedWriter(out, BODY_CHUNK)
    writer = MarkdownWriter(body.emit, options, body.emit_all)
    spools = []

    def hold_back() -> None:
        # a second session: the table of contents goes in front, so the
        # body written so far is moved into a spool and the output rewound
        if start < 0:
            return  # the null device: nothing to move, nothing to keep in order
        body.flush()
        out.flush()
        spool = spool_file(SPOOL_MEMORY)
        spools.append(spool)
        fd, offset, end = out.fileno(), start, out.tell()
        while offset < end:
            data = os.pread(fd, min(end - offset, 1 << 20), offset)
            if not data:
                break
            spool.write(data)
            offset += len(data)
        out.seek(start)
        body.out = spool

    writer.before_contents = hold_back
    try:
        if options.image_dir is not None:
            writer.image_dir, writer.image_link = image_directory(options.image_dir, ctx.name)
        feed(events, writer)
        writer.finish()
        body.flush()
        preamble = writer.preamble()
        if spools:
            out.write(preamble.encode("utf-8", "replace"))
            spools[0].seek(0)
            copy_body(spools[0], out)
        elif preamble:  # the null device only: a plain file has a spool by now
            out.write(preamble.encode("utf-8", "replace"))
    except BaseException:
        # as if spooled: what was written of the body is taken back
        body.parts.clear()
        if start >= 0:
            try:
                out.flush()
            except OSError:
                pass
            try:
                os.ftruncate(out.fileno(), start)
                out.seek(start)
            except (OSError, ValueError):
                pass
        raise
    finally:
        for spool in spools:
            spool.close()


def copy_body(spool, out: BinaryIO) -> None:
    """The spooled body after what ``out`` holds: copied by the kernel
    (``sendfile``) when the spool went to disk and the output is a file, a
    pipe or a device, which saves reading every byte back into the process;
    through a buffer otherwise (a spool still in memory, an in-memory
    output, a terminal, a system without ``sendfile``)."""
    sendfile = getattr(os, "sendfile", None)
    if sendfile is not None and getattr(spool, "_rolled", False):
        try:
            source, target = spool.fileno(), out.fileno()
        except (AttributeError, OSError, ValueError):
            pass
        else:
            out.flush()
            offset, size = spool.tell(), os.fstat(source).st_size
            try:
                while offset < size:
                    sent = sendfile(target, source, offset, min(size - offset, 1 << 30))
                    if not sent:
                        break
                    offset += sent
            except OSError as exc:
                # the output takes no sendfile (a terminal, some file
                # systems): nothing was sent, the buffer copies it all
                if exc.errno not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP) or offset != spool.tell():
                    raise
            if offset >= size:
                return
            spool.seek(offset)
    # shutil.copyfileobj's loop (shutil, with bz2 and lzma, costs every
    # document's start-up more than this function)
    read, write = spool.read, out.write
    while True:
        data = read(1 << 20)
        if not data:
            return
        write(data)


EXPORTER = Exporter(
    name="markdown",
    description="Markdown to read, commit or keep in a notes vault (several sessions: one document with a table of contents)",
    write=write,
    extension=".md",
    multi_session=True,
    options=(*COMMON_OPTIONS, FRONT_MATTER),
)
