"""The HTML viewer's inline stylesheet and script, and the page's CSP.

They are constants so the page needs nothing but itself.  The Content
Security Policy allows exactly these two blocks (by SHA-256 hash) and
nothing from the network, so even a bug in escaping could not run a
transcript's script or load a remote resource.
"""

from __future__ import annotations

import binascii
import functools

CSS = """
:root{--bg:#f5f6f8;--panel:#fff;--ink:#1d2330;--muted:#667085;--line:#e3e6eb;--accent:#3a63d8;
--user:#eef3ff;--user-line:#b9cbff;--code:#f3f4f7;--tool:#f8f9fb;--add:#e6f6ea;--add-ink:#17663a;
--del:#fdecec;--del-ink:#a42525;--hunk:#6b5bd2;--err:#c4302b;--think:#7a6a3a;--mark:#ffe58a;
--mono:ui-monospace,SFMono-Regular,"JetBrains Mono",Menlo,Consolas,"Liberation Mono",monospace;
--sans:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#0f1217;--panel:#171b22;--ink:#e4e7ec;--muted:#98a2b3;
--line:#2a303b;--accent:#8aa8ff;--user:#18223a;--user-line:#2f4a8a;--code:#11151b;--tool:#141820;
--add:#11291b;--add-ink:#7ee2a0;--del:#331717;--del-ink:#ff9c9c;--hunk:#b3a6ff;--err:#ff7b72;
--think:#d9c27a;--mark:#7a5d00}}
*{box-sizing:border-box}
html{scroll-padding-top:4.5rem}
body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.55 var(--sans)}
a{color:var(--accent)}
.topbar{position:sticky;top:0;z-index:5;display:flex;gap:1rem;align-items:center;padding:.55rem 1.25rem;
background:color-mix(in srgb,var(--bg) 88%,transparent);backdrop-filter:blur(6px);border-bottom:1px solid var(--line)}
.brand{font-weight:650;letter-spacing:.01em;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;flex:1 1 auto;min-width:0}
.brand small{color:var(--muted);font-weight:400;margin-left:.5rem}
.controls{display:flex;gap:.5rem;align-items:center;flex:0 0 auto}
.controls[hidden]{display:none}
.controls input[type=search]{width:16rem;padding:.35rem .6rem;border:1px solid var(--line);border-radius:6px;
background:var(--panel);color:var(--ink);font:inherit}
.controls button{padding:.3rem .6rem;border:1px solid var(--line);border-radius:6px;background:var(--panel);color:var(--ink);font:13px var(--sans);cursor:pointer}
.controls button:hover{border-color:var(--accent)}
#hits{color:var(--muted);font-size:13px;min-width:7rem;text-align:right}
main{max-width:58rem;margin:0 auto;padding:1.25rem 1.25rem 4rem}
body:has(> nav.sidebar) main{margin-left:calc(18rem + max(0px,(100vw - 18rem - 58rem)/2))}
.sidebar{position:fixed;top:0;left:0;bottom:0;width:18rem;overflow:auto;padding:3.6rem .75rem 1rem;
background:var(--panel);border-right:1px solid var(--line);z-index:4}
.sidebar h2{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:.25rem .5rem .5rem}
.sidebar ol{list-style:none;margin:0;padding:0}
.sidebar a{display:block;padding:.4rem .5rem;border-radius:6px;text-decoration:none;color:var(--ink)}
.sidebar a:hover{background:var(--tool)}
.sidebar .t{display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;font-size:14px;line-height:1.35;overflow:hidden;overflow-wrap:anywhere}
.sidebar a.current{background:var(--user);box-shadow:inset 3px 0 0 var(--accent)}
.sidebar .sub{display:block;font-size:12px;color:var(--muted)}
@media (max-width:900px){.sidebar{position:static;width:auto;padding:1rem;border-right:0;border-top:1px solid var(--line)}
body:has(> nav.sidebar) main{margin-left:auto}}
.session{margin:0 0 3rem}
.session-head{background:var(--panel);border:1px solid var(--line);border-radius:10px;padding:1rem 1.25rem;margin-bottom:1.25rem}
.session-head h1{font-size:1.35rem;line-height:1.3;margin:0 0 .6rem}
.session-head h1 a{color:inherit;text-decoration:none}
.facts{display:flex;flex-wrap:wrap;gap:.35rem 1.5rem;margin:0;font-size:13px}
.facts div{display:flex;gap:.4rem;min-width:0}
.facts dt{color:var(--muted)}
.facts dd{margin:0;font-family:var(--mono);font-size:12.5px;overflow-wrap:anywhere}
.session-head details{margin-top:.6rem;font-size:13px}
.session-head details summary{color:var(--muted);cursor:pointer}
.msg{position:relative;margin:.4rem 0}
.msg.hide,.session.hide{display:none}
.msg-head{display:flex;align-items:baseline;gap:.6rem;margin:1.4rem 0 .35rem;font-size:13px}
.who{font-weight:650;font-size:14px}
.msg.user .who{color:var(--accent)}
.msg-head time{color:var(--muted)}
.anchor{color:var(--muted);text-decoration:none;opacity:0;font-size:12px}
.msg:hover .anchor,.anchor:focus{opacity:1}
.anchor.side{position:absolute;left:-1.3rem;top:.45rem;padding:0 .3rem}
.bubble{background:var(--panel);border:1px solid var(--line);border-radius:10px;padding:.7rem 1rem}
.msg.user .bubble{background:var(--user);border-color:var(--user-line)}
.msg:target .bubble,.msg:target>details{outline:2px solid var(--accent);outline-offset:2px}
.prose{white-space:pre-wrap;overflow-wrap:anywhere}
.prose code,.brief code{font-family:var(--mono);font-size:.9em;background:var(--code);border:1px solid var(--line);border-radius:4px;padding:0 .25em}
pre{margin:.5rem 0;padding:.65rem .8rem;background:var(--code);border:1px solid var(--line);border-radius:8px;
overflow:auto;max-height:36rem;font:12.5px/1.5 var(--mono);white-space:pre-wrap;overflow-wrap:anywhere}
pre .lang{float:right;color:var(--muted);font:11px var(--sans);margin:-.2rem -.3rem 0 .5rem}
details>summary{cursor:pointer;list-style:none}
details>summary::-webkit-details-marker{display:none}
details>summary::before{content:"\\25B8";display:inline-block;width:1em;color:var(--muted);transition:transform .12s}
details[open]>summary::before{transform:rotate(90deg)}
.tool>details,.thinking>details,.note>details{background:var(--tool);border:1px solid var(--line);border-radius:8px;padding:.35rem .7rem}
.tool>details>summary,.thinking>details>summary,.note>details>summary{display:flex;align-items:baseline;gap:.5rem;font-size:13px;min-width:0}
.badge{font:600 11.5px var(--mono);padding:.05rem .45rem;border-radius:999px;background:var(--panel);border:1px solid var(--line);white-space:nowrap}
.call .badge{color:var(--accent)}
.result .badge{color:var(--muted)}
.result.error .badge{color:var(--err);border-color:var(--err)}
.brief{font-family:var(--mono);font-size:12.5px;color:var(--ink);white-space:nowrap;overflow:hidden;text-overflow:ellipsis;min-width:0;flex:1 1 auto}
.result .brief{color:var(--muted)}
.lines{color:var(--muted);font-size:12px;white-space:nowrap}
.result{margin-left:1.5rem}
.thinking summary{color:var(--think);font-style:italic}
.gist{color:var(--muted);font-style:normal;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;min-width:0;flex:1 1 auto}
.thinking .prose{color:var(--muted);font-size:14px;padding:.35rem 0}
.note summary{color:var(--muted)}
.cut{color:var(--muted);font-size:12px;font-style:italic;margin:.2rem 0 .3rem}
.diff .add{background:var(--add);color:var(--add-ink);display:inline-block;width:100%}
.diff .del{background:var(--del);color:var(--del-ink);display:inline-block;width:100%}
.diff .hunk{color:var(--hunk)}
.diff .file{color:var(--muted);font-weight:600}
.sh .prompt{color:var(--muted);user-select:none}
.msg.sidechain{margin-left:1.25rem;padding-left:.85rem;border-left:2px solid var(--user-line)}
.msg.sidechain .who{color:var(--muted)}
.msg.sidechain.result{margin-left:2.75rem}
.session-end{margin-top:1.5rem;padding-top:.75rem;border-top:1px dashed var(--line);color:var(--muted);font-size:13px}
.session-end p{margin:.2rem 0}
mark{background:var(--mark);color:inherit;border-radius:2px}
.empty{color:var(--muted);font-style:italic}
@media print{.topbar,.sidebar{display:none}body:has(> nav.sidebar) main{margin-left:auto}}
"""

JS = """
(function () {
  "use strict";
  var controls = document.getElementById("controls");
  var q = document.getElementById("q");
  var hits = document.getElementById("hits");
  if (!controls || !q) return;
  controls.hidden = false;
  var msgs = Array.prototype.slice.call(document.querySelectorAll("article.msg"));
  var sessions = Array.prototype.slice.call(document.querySelectorAll("section.session"));
  var opened = [];
  // an entry is what the page shows as one: a call with its result, a command with its output
  function count(n) { return n + (n === 1 ? " entry" : " entries"); }
  hits.textContent = count(msgs.length);
  if (sessions.length > 1) {
    var brand = document.querySelector(".brand");
    brand.firstChild.textContent = sessions.length + " sessions";
  }
  function run() {
    var s = q.value.trim().toLowerCase();
    opened.forEach(function (d) { d.open = false; });
    opened = [];
    var shown = 0;
    msgs.forEach(function (m) {
      var ok = !s || m.textContent.toLowerCase().indexOf(s) !== -1;
      m.classList.toggle("hide", !ok);
      if (ok) {
        shown++;
        if (s) {
          var d = m.querySelector("details");
          if (d && !d.open) { d.open = true; opened.push(d); }
        }
      }
    });
    sessions.forEach(function (sec) {
      sec.classList.toggle("hide", !!s && !sec.querySelector("article.msg:not(.hide)"));
    });
    hits.textContent = s ? shown + " of " + count(msgs.length) : count(msgs.length);
  }
  var timer = null;
  q.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(run, 150); });
  document.addEventListener("keydown", function (e) {
    if (e.key === "/" && document.activeElement !== q) { e.preventDefault(); q.focus(); }
    if (e.key === "Escape" && document.activeElement === q) { q.value = ""; run(); }
  });
  var links = {};
  document.querySelectorAll(".sidebar a").forEach(function (a) { links[a.getAttribute("href").slice(1)] = a; });
  if (sessions.length > 1 && "IntersectionObserver" in window) {
    var current = null;
    var seen = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (!e.isIntersecting) return;
        var a = links[e.target.id];
        if (!a || a === current) return;
        if (current) current.classList.remove("current");
        current = a;
        a.classList.add("current");
      });
    }, { rootMargin: "-20% 0px -70% 0px" });
    sessions.forEach(function (sec) { seen.observe(sec); });
  }
  // page.html?q=text opens the page filtered: a link can share a search.
  var preset = new URLSearchParams(location.search).get("q");
  if (preset) { q.value = preset; run(); }
  var toggle = document.getElementById("toggle");
  toggle.addEventListener("click", function () {
    var open = toggle.getAttribute("data-open") !== "1";
    document.querySelectorAll("article.msg details").forEach(function (d) { d.open = open; });
    toggle.setAttribute("data-open", open ? "1" : "0");
    toggle.textContent = open ? "Collapse all" : "Expand all";
    opened = [];
  });
})();
"""


# Rendered Markdown, tool units, commands and the session's navigation.
CSS_MARKUP = """
.session{display:flex;flex-direction:column}
.session-head{order:-2}
.session-nav{order:-1;margin:-.5rem 0 1rem;font-size:13px}
.session-nav .counts{margin:.2rem 0 .4rem;color:var(--muted)}
.toc{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:.35rem .8rem}
.toc summary{color:var(--muted)}
.toc ol{margin:.3rem 0 .2rem;padding-left:1.6rem;max-height:18rem;overflow:auto}
.toc li{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.toc a{text-decoration:none}
.toc .more{color:var(--muted);list-style:none}
.md{overflow-wrap:anywhere}
.md>:first-child{margin-top:0}
.md>:last-child{margin-bottom:0}
.md p,.md ul,.md ol,.md blockquote,.md table{margin:.45rem 0}
.md ul,.md ol{padding-left:1.5rem}
.md h1,.md h2,.md h3,.md h4,.md h5,.md h6{margin:.8rem 0 .35rem;line-height:1.3}
.md h1{font-size:1.3rem}.md h2{font-size:1.18rem}.md h3{font-size:1.06rem}.md h4,.md h5,.md h6{font-size:1rem}
.md blockquote{border-left:3px solid var(--line);margin-left:0;padding-left:.8rem;color:var(--muted)}
.md code{font-family:var(--mono);font-size:.9em;background:var(--code);border:1px solid var(--line);border-radius:4px;padding:0 .25em}
.md pre code{background:none;border:0;padding:0;font-size:inherit}
.md table{border-collapse:collapse;display:block;overflow:auto}
.md th,.md td{border:1px solid var(--line);padding:.25rem .55rem}
.md th{background:var(--tool)}
.md hr{border:0;border-top:1px solid var(--line)}
.thinking .md{color:var(--muted);font-size:14px;padding:.35rem 0}
.md.plan{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:.5rem .8rem;margin:.4rem 0}
.tool>details.unit{background:var(--tool);border:1px solid var(--line);border-radius:8px;padding:.35rem .7rem}
.tool>details.unit>summary{display:flex;align-items:baseline;gap:.5rem;font-size:13px;min-width:0}
.tool-in{margin:.3rem 0}
.tool-out{border-top:1px dashed var(--line);margin-top:.4rem;padding-top:.3rem}
.out-head{display:flex;gap:.5rem;align-items:baseline;font-size:12px}
.tool-out .badge{color:var(--muted)}
.tool-out.error .badge,.badge.err{color:var(--err);border-color:var(--err)}
details.long>summary{display:flex;gap:.5rem;align-items:baseline;font-size:12px;min-width:0}
.path{margin:.3rem 0;font-size:13px}
.path .what,.path .range{color:var(--muted)}
.path code{font-family:var(--mono);font-size:12.5px}
.spawn{margin:.2rem 0;font-size:12.5px}
.cmd{display:flex;gap:.5rem;align-items:baseline;flex-wrap:wrap}
.chip{font:600 12.5px var(--mono);padding:.1rem .55rem;border-radius:6px;background:var(--code);border:1px solid var(--accent);color:var(--accent)}
.chip.shell{border-color:var(--muted);color:var(--ink)}
.cmd .args{font-family:var(--mono);font-size:12.5px}
.cmd-err{color:var(--err)}
.no-result{font-size:12px}
.media img{display:block;max-width:100%;max-height:32rem;margin:.5rem 0;border:1px solid var(--line);border-radius:6px}
"""


@functools.lru_cache(maxsize=None)
def page_css() -> str:
    """The page's one stylesheet: the viewer's, then code highlighting's
    (Pygments, loaded only when a page is written)."""
    from sessionport.render.markup import highlight_css

    return CSS + CSS_MARKUP + highlight_css() + "\n"


def _sha256():
    # CPython's own SHA-256: hashlib would load OpenSSL, which costs a
    # page's start-up more than the rest of this module
    try:
        from _sha2 import sha256  # Python 3.12 on
    except ImportError:
        try:
            from _sha256 import sha256
        except ImportError:
            from hashlib import sha256
    return sha256


def _csp_hash(text: str) -> str:
    digest = _sha256()(text.encode("utf-8")).digest()
    return "'sha256-" + binascii.b2a_base64(digest, newline=False).decode("ascii") + "'"  # base64.b64encode


@functools.lru_cache(maxsize=None)
def content_security_policy() -> str:
    return (
        "default-src 'none'; "
        f"style-src {_csp_hash(page_css())}; "
        f"script-src {_csp_hash(JS)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def __getattr__(name: str) -> str:
    if name == "CSP":
        return content_security_policy()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
