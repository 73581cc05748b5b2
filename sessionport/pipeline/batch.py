"""Many inputs: expanding directories and references, converting files in
parallel worker processes, and reporting failures without stopping.

A batch is a list of :class:`Job` s, one per input file.  Each job is
independent (its own reader, stages and writer), so it runs in any worker
process; results come back in input order, which keeps every output and the
combined stream deterministic whatever ``--jobs`` is.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence

from sessionport import api
from sessionport.context import ReadContext
from sessionport.errors import SessionportError, UsageError
from sessionport.io import is_stdin, is_url
from sessionport.registry import get_registry

# What a directory walk picks up when no --glob is given.
DEFAULT_GLOBS = ("*.jsonl", "*.json", "*.ndjson", "*.jsonl.zst", "*.jsonl.gz", "*.json.gz", "*.jsonl.bz2", "*.jsonl.xz", "*.zip")
COMPRESSED = (".zst", ".gz", ".bz2", ".xz")
DATA_SUFFIXES = (".jsonl", ".json", ".ndjson", ".zip")

StageFactory = Callable[[], Callable[[Iterable[dict]], Iterator[dict]]]


@dataclass(frozen=True)
class Source:
    """One input: ``spec`` to open, ``relative`` to mirror under an output directory."""

    spec: str
    relative: str


def _companion(path: str) -> bool:
    """Files read as part of another file (Claude Code subagent transcripts
    are included by their parent session) or holding no session (the
    sidecar files of an unpacked ChatGPT export), so a directory walk
    skips them."""
    parts = path.replace(os.sep, "/").split("/")
    name = parts[-1]
    if name.endswith(".json"):
        from sessionport.formats.chatgpt.export_folder import is_export_sidecar

        return is_export_sidecar(path)  # user.json, export_manifest.json... of a ChatGPT export
    return name.startswith("agent-") and name.endswith(".jsonl") and (len(parts) >= 2 and parts[-2] == "subagents" or _has_session_sibling(path))


def _has_session_sibling(path: str) -> bool:
    folder = os.path.dirname(path)
    try:
        return any(n.endswith(".jsonl") and not n.startswith("agent-") for n in os.listdir(folder))
    except OSError:
        return False


def walk(directory: str, globs: Sequence[str]) -> list[Source]:
    found = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.startswith(".") or not any(fnmatch.fnmatch(name, g) for g in globs):
                continue
            path = os.path.join(root, name)
            if _companion(path):
                continue
            found.append(Source(path, os.path.relpath(path, directory)))
    return found


def expand(specs: Sequence[str | None], globs: Sequence[str] = ()) -> list[Source]:
    """Paths, directories (walked recursively, sorted) and ``@`` references
    from session discovery, as a list of sources in a deterministic order."""
    globs = tuple(globs) or DEFAULT_GLOBS
    sources: list[Source] = []
    for spec in specs or (None,):
        if is_stdin(spec):
            sources.append(Source("-", "stdin"))
        elif is_url(spec) and any(c in spec for c in "*?["):
            sources.extend(_url_glob(spec))
        elif spec.startswith("@") and not os.path.exists(spec):
            from sessionport.pipeline.discover import resolve_reference

            sources.extend(Source(path, relative) for path, relative in resolve_reference(spec))
        elif os.path.isdir(spec):
            walked = walk(spec, globs)
            if not walked:
                raise UsageError(f"{spec}: no files matching {', '.join(globs)} in this directory; use --glob")
            sources.extend(walked)
        else:
            sources.append(Source(spec, os.path.basename(spec)))
    return sources


def _url_glob(spec: str) -> list[Source]:
    """A URL pattern (``s3://bucket/sessions/**/*.jsonl``) as sorted sources."""
    try:
        import fsspec
    except ImportError:
        raise UsageError(f"{spec}: reading URLs needs fsspec: pip install 'sessionport[remote]'") from None
    fs, _, paths = fsspec.get_fs_token_paths(spec)
    base = spec.split("://", 1)[1].split("*", 1)[0].rsplit("/", 1)[0].strip("/")
    found = []
    for path in sorted(paths):
        relative = os.path.relpath(path.strip("/"), base) if base else path.strip("/")
        found.append(Source(fs.unstrip_protocol(path), relative))
    if not found:
        raise UsageError(f"{spec}: no files match this pattern")
    return found


def target_path(directory: str, relative: str, extension: str, taken: set[str]) -> str:
    """``relative`` under ``directory`` with its data suffixes replaced by
    ``extension``; keeps the old suffix when two inputs would collide."""
    stem = relative
    for suffix in COMPRESSED:
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    plain = stem
    for suffix in DATA_SUFFIXES:
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    candidate = os.path.join(directory, stem + extension)
    if candidate in taken:
        candidate = os.path.join(directory, plain + extension)
    taken.add(candidate)
    return candidate


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to convert one input; picklable."""

    source: str
    target: str | None
    to: str
    from_: str | None = None
    strict: bool = False
    skip_bad: bool = False
    read_opts: dict[str, Any] = field(default_factory=dict)
    write_opts: dict[str, Any] = field(default_factory=dict)
    stages: tuple[StageFactory, ...] = ()


@dataclass
class Outcome:
    source: str
    target: str | None
    ok: bool
    error: str | None = None
    warnings: list[str] = field(default_factory=list)


def is_batch(specs: Sequence[str | None], sources: Sequence[Source]) -> bool:
    """Several inputs, or one that names many (a directory, an ``@`` reference)."""
    return len(sources) > 1 or any(spec and (os.path.isdir(spec) or spec.startswith("@")) for spec in specs)


def directory_jobs(sources: Sequence[Source], directory: str, template: Job) -> list[Job]:
    """One job per source, each writing under ``directory`` at the source's
    relative path with the target format's extension (directories made)."""
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise UsageError(f"{directory}: several inputs need -o to be a directory (one output per input)")
    extension = exporter_extension(template.to)
    taken: set[str] = set()
    jobs = []
    for source in sources:
        target = target_path(directory, source.relative, extension, taken)
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        jobs.append(dataclasses.replace(template, source=source.spec, target=target))
    return jobs


def run_job(job: Job) -> Outcome:
    """Convert one input; never raises for bad data (the batch goes on)."""
    ctx = ReadContext()
    warnings: list[str] = []
    ctx.on_warning = warnings.append
    try:
        events: Iterable[dict] = api.read(job.source, format=job.from_, strict=job.strict, skip_bad=job.skip_bad, options=dict(job.read_opts), context=ctx)
        for factory in job.stages:
            events = factory()(events)
        api.write(events, job.target, format=job.to, options=dict(job.write_opts), inputs=[job.source])
    except SessionportError as exc:
        return Outcome(job.source, job.target, False, str(exc), warnings)
    except Exception as exc:  # one broken file must not end the batch
        return Outcome(job.source, job.target, False, f"{job.source}: internal error: {type(exc).__name__}: {exc}", warnings)
    return Outcome(job.source, job.target, True, None, warnings)


def _pool(jobs: int):
    # Imported here: worker processes are only for --jobs > 1, and these
    # modules cost a single conversion a noticeable part of its start-up.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    return ProcessPoolExecutor(max_workers=jobs, mp_context=context)


def run_jobs(jobs: Sequence[Job], workers: int) -> Iterator[Outcome]:
    """Outcomes in the order of ``jobs``; in parallel when ``workers`` > 1."""
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield run_job(job)
        return
    with _pool(min(workers, len(jobs))) as pool:
        # chunksize keeps the per-file overhead small when files are many and small
        chunk = max(1, min(16, len(jobs) // (workers * 8)))
        yield from pool.map(run_job, jobs, chunksize=chunk)


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def combined_stream(jobs: Sequence[Job], workers: int, on_outcome: Callable[[Outcome], None]) -> Iterator[dict]:
    """One stream of every input's events, in input order, converted in
    parallel: workers write portable-jsonl to temporary files that are then
    read back in order; failed inputs are reported and left out."""
    with tempfile.TemporaryDirectory(prefix="sessionport-batch-") as scratch:
        staged = [dataclasses.replace(j, target=os.path.join(scratch, f"{i:06d}.jsonl"), to="portable-jsonl", write_opts={}) for i, j in enumerate(jobs)]
        for outcome in run_jobs(staged, workers):
            on_outcome(outcome)
            if outcome.ok:
                yield from api.read(outcome.target, format="portable-jsonl")
                os.unlink(outcome.target)


def stage_factory(build: Callable[..., Any], **options: Any) -> StageFactory:
    """A picklable factory for a stage built with ``options``."""
    return functools.partial(build, **options)


def exporter_extension(format: str) -> str:
    extension = get_registry().exporter(format).extension
    return extension if extension.startswith(".") else "." + extension
