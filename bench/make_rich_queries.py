"""Regenerate bench/queries/rich.jsonl: labelled queries over Rich 13.9.4 (a second Python corpus) for `fourfold eval`.

Rich is a terminal-rendering library, far from Django's web and database vocabulary, so a ranking
tuned on one corpus is tested on a different one. The gold is derived exactly as for Django
(`bench/make_django_queries.py`, whose machinery this script reuses):
- find_definition: every `def`/`class` of that name under `rich/`, found with `ast` (any one answers);
- find_references: every call `name(...)` / `x.name(...)`, with `ast`;
- impact_analysis: those call sites plus every `from ... import name` line;
- exact_match: every line `rg -F` finds the string on.
- find_similar (issue 14, "classes like X"): every other direct subclass of X's base under `rich/`,
  found with `ast`, at its class line (any one answers);
understand_code and the first find_similar gold is hand-checked files; unanswerable queries name things the
corpus does not contain, re-checked with `rg`.

Usage: python bench/make_rich_queries.py [--corpus bench/corpora/rich-13.9.4] [--out FILE]
(fetch the corpus first with bench/fetch_rich.sh).
"""

from __future__ import annotations

import sys
from pathlib import Path

from make_django_queries import Hand, PythonFacts, Tables, build_rows, generate

HERE = Path(__file__).resolve().parent
PACKAGE = "rich/"

# (id, query, name defined under rich/)
DEFINITIONS = [
    ("def-01", "def cell_len", "cell_len"),
    ("def-02", "class Segment", "Segment"),
    ("def-03", "where is loop_last defined", "loop_last"),
    ("def-04", "Padding", "Padding"),
    ("def-05", "definition of ratio_resolve", "ratio_resolve"),
    ("def-06", "where is the Spinner class defined", "Spinner"),
    ("def-07", "get_console", "get_console"),
    ("def-08", "dove è definito pick_bool", "pick_bool"),  # it
    ("def-09", "blend_rgb được định nghĩa ở đâu", "blend_rgb"),  # vi
    ("def-10", "class Measurement", "Measurement"),
    ("def-11", "where is the progress bar class defined", "ProgressBar"),  # in plain words
]

# (id, query, called name)
REFERENCES = [
    ("ref-01", "who calls loop_last", "loop_last"),
    ("ref-02", "usages of set_cell_size", "set_cell_size"),
    ("ref-03", "callers of rich_cast", "rich_cast"),
    ("ref-04", "where is measure_renderables used", "measure_renderables"),
    ("ref-05", "chi chiama chop_cells", "chop_cells"),  # it
    ("ref-06", "ai gọi loop_first", "loop_first"),  # vi
]

# (id, query, name whose callers and importers are hit by a change)
IMPACTS = [
    ("imp-01", "what depends on pick_bool", "pick_bool"),
    ("imp-02", "impact of changing blend_rgb", "blend_rgb"),
    ("imp-03", "what breaks if I change is_renderable", "is_renderable"),
    ("imp-04", "cosa dipende da ratio_resolve", "ratio_resolve"),  # it
    ("imp-05", "những gì phụ thuộc vào get_fileno", "get_fileno"),  # vi
]

# (id, query, the literal string; gold is every line rg -F finds it on)
EXACT = [
    ("exa-01", '"Only one live display may be active at once"', "Only one live display may be active at once"),
    ("exa-02", '"Unable to pop base theme"', "Unable to pop base theme"),
    ("exa-03", '"Couldn\'t process markdown table."', "Couldn't process markdown table."),
    ("exa-04", '"slices with step!=1 are not supported"', "slices with step!=1 are not supported"),
    ("exa-05", '"can\'t have unbuffered text I/O"', "can't have unbuffered text I/O"),
    ("exa-06", "\"color expected after 'on'\"", "color expected after 'on'"),
    ("exa-07", 'dove compare "expected at least one non-None style"', "expected at least one non-None style"),  # it
]

UNDERSTAND = [
    Hand("und-01", "how is the width of wide east asian characters measured in the terminal", "understand_code",
         ("rich/cells.py", "rich/_cell_widths.py")),
    Hand("und-02", "how does the library draw an animated indicator while a task runs", "understand_code",
         ("rich/spinner.py", "rich/status.py")),
    Hand("und-03", "how are column widths shared out when a grid does not fit the screen", "understand_code",
         ("rich/table.py", "rich/_ratio.py")),
    Hand("und-04", "how is source code coloured by language", "understand_code", ("rich/syntax.py",)),
    Hand("und-05", "how are exception stack frames rendered with surrounding source lines", "understand_code",
         ("rich/traceback.py",)),
    Hand("und-06", "how does square bracket style notation in strings get parsed", "understand_code",
         ("rich/markup.py",)),
    Hand("und-07", "how does an updating display redraw itself in place", "understand_code",
         ("rich/live.py", "rich/live_render.py")),
    Hand("und-08", "come viene calcolato il tempo rimanente di un'operazione lunga", "understand_code",  # it
         ("rich/progress.py",)),
    Hand("und-09", "come si esporta l'output del terminale in HTML", "understand_code",  # it
         ("rich/console.py", "rich/_export_format.py")),
    Hand("und-10", "cách hiển thị cấu trúc thư mục dạng cây", "understand_code",  # vi
         ("rich/tree.py",)),
]

SIMILAR = [
    Hand("sim-01", "code similar to the Padding renderable", "find_similar",
         ("rich/align.py", "rich/constrain.py", "rich/styled.py")),
    Hand("sim-02", "renderables like the Rule", "find_similar", ("rich/bar.py", "rich/progress_bar.py")),
    Hand("sim-03", "highlighters similar to ReprHighlighter", "find_similar", ("rich/highlighter.py",)),
    Hand("sim-04", "code like the Panel box drawing", "find_similar", ("rich/box.py", "rich/table.py")),
]

UNANSWERABLE = [
    Hand("una-01", "where is the SQL query builder defined", "find_definition", (), absent=("SQLAlchemy",)),
    Hand("una-02", "how does the websocket reconnect after a dropped connection", "understand_code", (),
         absent=("websocket", "WebSocket")),
    Hand("una-03", '"CSRF token missing"', "exact_match", (), absent=("CSRF",)),
    Hand("una-04", "who calls render_svg_chart", "find_references", (), absent=("render_svg_chart",)),
    Hand("una-05", "come vengono cifrate le password", "understand_code", (), absent=("bcrypt", "pbkdf2")),  # it
    # issue 14: names that do not exist, asked every way a target is asked
    Hand("una-06", "where is render_markdown_slides defined", "find_definition", (), absent=("markdown_slides",)),
    Hand("una-07", "who calls paint_gradient_border", "find_references", (), absent=("gradient_border",)),
    Hand("una-08", "what depends on TerminalImageRenderer", "impact_analysis", (), absent=("ImageRenderer",)),
    Hand("una-09", "class SixelGraphicsEncoder", "find_definition", (), absent=("Sixel",)),
    Hand("una-10", "ai gọi draw_sparkline_chart", "find_references", (), absent=("sparkline",)),  # vi
    Hand("una-11", "how does the Kubernetes log streamer colour pods", "understand_code", (), absent=("Kubernetes",)),
]


# issue 14: "classes like X", gold = the other direct subclasses of X's base (as in make_django_queries)
SIMILAR_BY_BASE = [
    ("sim-05", "columns similar to SpinnerColumn", "SpinnerColumn", "ProgressColumn"),
    ("sim-06", "code like the Heading markdown element", "Heading", "TextElement"),
    ("sim-07", "highlighters like JSONHighlighter", "JSONHighlighter", "RegexHighlighter"),
    ("sim-08", "simile a TableElement", "TableElement", "MarkdownElement"),  # it
    ("sim-09", "tương tự như BarColumn", "BarColumn", "ProgressColumn"),  # vi
    ("sim-10", "exceptions like NoAltScreen", "NoAltScreen", "ConsoleError"),
]

TABLES = Tables(DEFINITIONS, REFERENCES, IMPACTS, EXACT, (*UNDERSTAND, *SIMILAR), UNANSWERABLE, SIMILAR_BY_BASE)


def build(corpus: Path) -> list[dict[str, object]]:
    return build_rows(corpus, PythonFacts.scan(corpus, PACKAGE), TABLES)


def main() -> int:
    return generate(__doc__.splitlines()[0] if __doc__ else None, HERE / "corpora" / "rich-13.9.4",
                    HERE / "queries" / "rich.jsonl", PACKAGE + "__init__.py", "fetch_rich.sh", build)


if __name__ == "__main__":
    sys.exit(main())
