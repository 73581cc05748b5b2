"""What the human-readable exporters (``markdown``, ``html``) let a user choose.

Both exporters declare the same :class:`Option` objects so a flag means the
same thing whichever of them is written; :class:`RenderOptions` reads the
values back from ``ctx.options`` and decides which messages are shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import click

from sessionport.registry import Option

MAX_OUTPUT = Option(
    name="max_output",
    flags=("--max-output",),
    help="Markdown/HTML: show at most N lines of each tool output, saying how many were cut (default: all).",
    type=click.IntRange(min=1),
)
# The keywords differ from the flags' default names because the filter stage
# has its own --no-thinking/--no-injected (which drop the messages from the
# stream) and the CLI routes options to stages and exporters by keyword.
NO_THINKING = Option(name="hide_thinking", flags=("--no-thinking",), help="Markdown/HTML: leave out thinking (reasoning) blocks.", is_flag=True)
NO_TOOLS = Option(name="hide_tools", flags=("--no-tools",), help="Markdown/HTML: leave out tool calls and their results.", is_flag=True)
NO_INJECTED = Option(
    name="hide_injected",
    flags=("--no-injected",),
    help="Markdown/HTML: leave out context injected by the harness (shown collapsed by default).",
    is_flag=True,
)
FRONT_MATTER = Option(
    name="front_matter",
    flags=("--front-matter",),
    help="Markdown: start with YAML front matter (title, date, source, id, tags) for note vaults.",
    is_flag=True,
)

IMAGES = Option(
    name="images",
    flags=("--images",),
    help=(
        "Markdown/HTML: how to show the images in the stream (read with --keep-images): 'placeholder' (default) shows their placeholder text, "
        "'embed' shows them inline (PNG, JPEG, GIF, WebP whose bytes match their type, up to 5 MB each; never SVG); "
        "Markdown also takes a directory: write them there and link them."
    ),
    type=str,
)

COMMON_OPTIONS = (MAX_OUTPUT, NO_THINKING, NO_TOOLS, NO_INJECTED, IMAGES)

TOOL_KINDS = frozenset({"tool_use", "tool_result"})


@dataclass(frozen=True)
class RenderOptions:
    max_output: int | None = None
    thinking: bool = True
    tools: bool = True
    injected: bool = True
    front_matter: bool = False
    images: str = "placeholder"  # or "embed", or (Markdown) a directory to write them to

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> "RenderOptions":
        max_output = options.get("max_output")
        if max_output is not None:
            max_output = int(max_output)
            if max_output < 1:
                max_output = None
        return cls(
            max_output=max_output,
            thinking=not (options.get("hide_thinking") or options.get("no_thinking")),
            tools=not (options.get("hide_tools") or options.get("no_tools")),
            injected=not (options.get("hide_injected") or options.get("no_injected")),
            front_matter=bool(options.get("front_matter")),
            images=str(options.get("images") or "placeholder"),
        )

    @property
    def embed_images(self) -> bool:
        return self.images == "embed"

    @property
    def image_dir(self) -> str | None:
        return None if self.images in ("placeholder", "embed") else self.images

    def shows(self, message: dict) -> bool:
        """Whether ``message`` is rendered at all under these options."""
        kind = message_kind(message)
        if not self.tools and (kind in TOOL_KINDS or message.get("toolName") is not None):
            return False
        if not self.thinking and kind == "thinking":
            return False
        if not self.injected and is_injected(message):
            return False
        return True


def is_injected(message: dict) -> bool:
    meta = message.get("meta")
    return isinstance(meta, dict) and bool(meta.get("injected"))


def message_kind(message: dict) -> str:
    """``meta.kind``, or ``text``; tolerant of a malformed ``meta``."""
    meta = message.get("meta")
    kind = meta.get("kind") if isinstance(meta, dict) else None
    return kind if isinstance(kind, str) else "text"
