"""Function-level localisation: which functions of the found files an issue is about (engine/rank/localisation.py)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from fourfold.engine.index.structure import parse_file
from fourfold.engine.model.profiles import FUNCTION_CLASS_NAMED
from fourfold.engine.model.records import ParsedFile, Span
from fourfold.engine.rank.fusion import FusedResult
from fourfold.engine.rank.localisation import (
    Evidence,
    Owned,
    candidates,
    lift_said,
    lift_worded,
    rank_functions,
    score_candidates,
)
from fourfold.engine.search.decompose import evidence_of, split

CORE = textwrap.dedent('''\
    class Writer:
        """Writes tables."""
        delimiter = ","

        def write(self, table):
            return self.format(table)

        def format(self, table):
            raise TypeError("header rows are not supported")


    def helper():
        return 1
    ''')
REGISTRY = textwrap.dedent('''\
    def dispatch(data):
        return data


    def lookup(name):
        return name
    ''')
FILES = {"pkg/core.py": CORE, "pkg/registry.py": REGISTRY}


def _parsed(path: str) -> ParsedFile | None:
    return parse_file(path, FILES[path], "python") if path in FILES else None


def _file(path: str, score: float) -> FusedResult:
    return FusedResult(path, Span(0, 0, 0, 0), None, None, "python", "", score, {}, {}, 1.0, False)


def _ranked(evidence: Evidence, places: Mapping[str, list[tuple[float, Span]]] | None = None,
            scores: tuple[float, float] = (1.0, 0.5)) -> list[str]:
    files = [_file("pkg/core.py", scores[0]), _file("pkg/registry.py", scores[1])]
    return [f"{hit.path}::{hit.symbol}" for hit in rank_functions(files, places or {}, _parsed, FILES.get, evidence)]


def test_nothing_stated_ranks_functions_by_their_file() -> None:
    ranked = _ranked(Evidence())
    assert {name.split("::")[0] for name in ranked[:4]} == {"pkg/core.py"}
    assert set(ranked[4:]) == {"pkg/registry.py::dispatch", "pkg/registry.py::lookup"}


def test_a_frame_in_the_second_file_beats_the_first_files_functions() -> None:
    ranked = _ranked(Evidence(frames={"pkg/registry.py": frozenset({"lookup"})}))
    assert ranked[0] == "pkg/registry.py::lookup"


def test_a_files_share_is_its_place_not_its_fused_score() -> None:
    for second in (0.99, 0.1):  # close behind the first file, or far behind: the same share
        files = [_file("pkg/core.py", 1.0), _file("pkg/registry.py", second)]
        shares = {c.symbol.name: c.file_share for c in candidates(files, {}, _parsed, FILES.get, Evidence())}
        assert shares["format"] == 1.0 and shares["dispatch"] == shares["lookup"] == 0.5
    # so the function the issue's words point at in a file scored far below the first still ranks first
    ranked = _ranked(Evidence(words=("dispatch",)), scores=(1.0, 0.1))
    assert ranked[0] == "pkg/registry.py::dispatch"


def test_a_stated_name_and_its_class() -> None:
    ranked = _ranked(Evidence(names={"format": 1.0}))
    assert ranked[0] == "pkg/core.py::Writer.format"
    by_class = _ranked(Evidence(names={"Writer": 1.0}))
    # its methods (half the statement each) before the class's own lines, its header and attributes
    assert set(by_class[:2]) == {"pkg/core.py::Writer.write", "pkg/core.py::Writer.format"}
    assert by_class.index("pkg/core.py::Writer") > 1


def test_a_stated_class_header_counts_a_share_of_its_statement() -> None:
    found = candidates([_file("pkg/core.py", 1.0)], {}, _parsed, FILES.get, Evidence(names={"Writer": 1.0}))
    named = {c.symbol.qualified or c.symbol.name: c.features["named"] for c in found}
    assert named["Writer"] == FUNCTION_CLASS_NAMED
    assert named["Writer.write"] == named["Writer.format"] == 0.5
    # a function of that name is stated in full: only a class's own lines are a share
    assert {c.symbol.name: c.features["named"] for c in candidates(
        [_file("pkg/registry.py", 1.0)], {}, _parsed, FILES.get, Evidence(names={"dispatch": 1.0}))}["dispatch"] == 1.0


def test_a_literal_counts_in_the_function_that_says_it() -> None:
    ranked = _ranked(Evidence(literals=("header rows are not supported",)))
    assert ranked[0] == "pkg/core.py::Writer.format"


def test_a_function_that_says_the_message_takes_its_files_place_among_the_files_that_say_it() -> None:
    # pkg/core.py is the second file found, but the only one whose function says the issue's message
    files = [_file("pkg/registry.py", 1.0), _file("pkg/core.py", 0.5)]
    found = candidates(files, {}, _parsed, FILES.get, Evidence(literals=("header rows are not supported",)))
    shares = {c.symbol.qualified or c.symbol.name: c.file_share for c in found}
    assert shares["Writer.format"] == 1.0  # as if its file came first
    assert shares["Writer.write"] == 0.5 and shares["dispatch"] == 1.0  # the rest keep their file's place
    # a test that says the message shows the bug, it is not pointed at: its file keeps its place
    lowered = candidates([files[0], replace(files[1], prior=0.3)], {}, _parsed, FILES.get,
                         Evidence(literals=("header rows are not supported",)))
    assert {c.symbol.name: c.file_share for c in lowered}["format"] == 0.5


def test_a_class_owns_its_header_and_attributes_not_its_methods() -> None:
    found = candidates([_file("pkg/core.py", 1.0)], {}, _parsed, FILES.get, Evidence(words=("delimit",)))
    words = {c.symbol.qualified or c.symbol.name: c.features["words"] for c in found}
    assert words["Writer"] == 1.0  # `delimiter = ","` is the class's own line
    assert words["Writer.write"] == words["Writer.format"] == words["helper"] == 0.0


def test_places_found_inside_a_function_count_for_it() -> None:
    place = Span(12, 4, 12, 12)  # `return 1` in helper
    found = candidates([_file("pkg/core.py", 1.0)], {"pkg/core.py": [(0.1, place)]}, _parsed, FILES.get,
                       Evidence())
    assert {c.symbol.name: c.features["found"] for c in found}["helper"] == 1.0
    best = score_candidates(found)[0][1]
    assert best.symbol.name == "helper"


def test_evidence_of_an_issue() -> None:
    text = textwrap.dedent('''\
        Writing fails in `dispatch`
        The Writer class cannot format tables with header rows.

        Traceback (most recent call last):
          File "/site-packages/pkg/registry.py", line 5, in lookup
        TypeError: header rows are not supported
        ''')
    evidence = evidence_of(text, FILES)
    assert evidence.frames == {"pkg/registry.py": frozenset({"lookup"})}
    assert evidence.names["dispatch"] == 1.0 and evidence.names["lookup"] == 1.0
    assert evidence.names["TypeError"] < 1.0  # a prose word, not backticked
    assert "header rows are not supported" in evidence.literals
    assert {"dispatch", "row", "head"} <= set(evidence.words)  # stemmed like the index
    assert split(text).frames == (("/site-packages/pkg/registry.py", "lookup"),)


def test_a_function_that_calls_a_stated_name() -> None:
    ranked = _ranked(Evidence(names={"format": 0.3}))
    assert ranked[:2] == ["pkg/core.py::Writer.format", "pkg/core.py::Writer.write"]  # write calls self.format


def test_a_file_whose_function_says_the_message_is_lifted_a_little() -> None:
    message = ("header rows are not supported",)
    close = [_file("pkg/registry.py", 1.0), _file("pkg/core.py", 0.9)]
    assert [r.path for r in lift_said(close, _parsed, FILES.get, message)] == ["pkg/core.py", "pkg/registry.py"]
    lifted = {r.path: r.score for r in lift_said(close, _parsed, FILES.get, message)}
    assert lifted == {"pkg/core.py": 0.9 * 1.25, "pkg/registry.py": 1.0}
    far = [_file("pkg/registry.py", 1.0), _file("pkg/core.py", 0.5)]  # a message alone does not beat every part
    assert [r.path for r in lift_said(far, _parsed, FILES.get, message)] == ["pkg/registry.py", "pkg/core.py"]
    assert [r.path for r in lift_said(close, _parsed, FILES.get, ())] == ["pkg/registry.py", "pkg/core.py"]
    # said only by a file the path prior lowers: lifted by the test share of the lift
    lowered = [_file("pkg/registry.py", 1.0), replace(_file("pkg/core.py", 0.9), prior=0.3)]
    assert {r.path: r.score for r in lift_said(lowered, _parsed, FILES.get, message)}["pkg/core.py"] == (
        0.9 * (1 + 0.25 * 0.3))


def test_a_file_whose_function_the_issues_words_fit_is_lifted(tmp_path: Path) -> None:
    for path, body in FILES.items():  # real files on disk, parsed by the real grammar
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(body)

    def text(path: str) -> str | None:
        return (tmp_path / path).read_text() if (tmp_path / path).is_file() else None

    def parsed(path: str) -> ParsedFile | None:
        body = text(path)
        return parse_file(path, body, "python") if body is not None else None

    words = ("format", "tabl")  # the prose's stemmed words: Writer.format's own lines
    close = [_file("pkg/registry.py", 1.0), _file("pkg/core.py", 0.8)]
    lifted = lift_worded(close, parsed, text, words)
    assert [r.path for r in lifted] == ["pkg/core.py", "pkg/registry.py"]
    assert {r.path: r.score for r in lifted} == {"pkg/core.py": 0.8 * 1.5, "pkg/registry.py": 1.0}
    far = [_file("pkg/registry.py", 1.0), _file("pkg/core.py", 0.5)]  # words alone do not beat every part
    assert [r.path for r in lift_worded(far, parsed, text, words)] == ["pkg/registry.py", "pkg/core.py"]
    assert [r.path for r in lift_worded(close, parsed, text, ())] == ["pkg/registry.py", "pkg/core.py"]
    # a file the path prior lowers: lifted by the test share of the lift
    lowered = [_file("pkg/registry.py", 1.0), replace(_file("pkg/core.py", 0.8), prior=0.3)]
    assert {r.path: r.score for r in lift_worded(lowered, parsed, text, words)}["pkg/core.py"] == (
        0.8 * (1 + 0.5 * 0.3))
    # past the first `depth` files nothing moves
    assert [r.path for r in lift_worded(close, parsed, text, words, depth=1)] == ["pkg/registry.py", "pkg/core.py"]
    # the function ranking and the lift share one tokenization of the files they both read
    owned: Owned = {}
    rank_functions(close, {}, parsed, text, Evidence(words=words), owned=owned)
    assert set(owned) == {"pkg/core.py", "pkg/registry.py"}
    assert lift_worded(close, parsed, text, words, owned=owned) == lifted


COMPARE = textwrap.dedent('''\
    def compare_sequence(left, right):
        extra = len(right) - len(left)
        return ["%s contains %d more items, first extra item: %s" % ("Right", extra, right[len(left)])]


    def compare_text(left, right):
        return ["Skipping %d identical leading characters" % len(left)]


    def qualify(module, name):
        return "{}.{}".format(module, name)
    ''')


def test_a_message_template_the_issues_output_fills(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "util.py").write_text(COMPARE)

    def text(path: str) -> str | None:
        return (tmp_path / path).read_text() if (tmp_path / path).is_file() else None

    def parsed(path: str) -> ParsedFile | None:
        body = text(path)
        return parse_file(path, body, "python") if body is not None else None

    pasted = evidence_of(textwrap.dedent('''\
        Confusing message with byte strings
        ```
        E       AssertionError: assert b'' == b'42'
        E         Right contains more items, first extra item: 52
        ```
        '''), {"pkg/util.py": "python"})
    files = [_file("pkg/util.py", 1.0)]
    literal = {c.symbol.name: c.features["literal"] for c in candidates(files, {}, parsed, text, pasted)}
    # the filled-in line is no substring of the source: only its fixed pieces, in order, are
    assert literal == {"compare_sequence": 1.0, "compare_text": 0.0, "qualify": 0.0}
    assert rank_functions(files, {}, parsed, text, pasted)[0].symbol == "compare_sequence"
    # the pieces out of order, or a template too short to tell (`"{}.{}"` fits any dotted name): nothing
    for line in ("first extra item: 52, Right contains more items", "pkg.module"):
        found = candidates(files, {}, parsed, text, Evidence(lines=(line,)))
        assert all(c.features["literal"] == 0.0 for c in found)


MODELS = textwrap.dedent('''\
    from .utils import stream_decode_response_unicode


    class Response:
        def iter_content(self, chunk_size=1, decode_unicode=False):
            chunks = self.raw.read(chunk_size)
            if decode_unicode:
                chunks = stream_decode_response_unicode(chunks, self)
            return chunks

        def close(self):
            self.raw.release_conn()
    ''')
UTILS = textwrap.dedent('''\
    def guess_filename(obj):
        return getattr(obj, "name", None)


    def stream_decode_response_unicode(iterator, r):
        for item in iterator:
            yield item.decode(r.encoding)
    ''')


def test_what_a_function_the_issue_names_calls(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "models.py").write_text(MODELS)
    (tmp_path / "pkg" / "utils.py").write_text(UTILS)

    def text(path: str) -> str | None:
        return (tmp_path / path).read_text() if (tmp_path / path).is_file() else None

    def parsed(path: str) -> ParsedFile | None:
        body = text(path)
        return parse_file(path, body, "python") if body is not None else None

    files = [_file("pkg/models.py", 1.0), _file("pkg/utils.py", 0.5)]
    index = {"pkg/models.py": "python", "pkg/utils.py": "python"}
    named = evidence_of("Uncertain about content/text vs iter_content(decode_unicode=True/False)\n"
                        "When requesting an application/json document, `iter_content` returns bytes.", index)
    called = {c.symbol.name: c.features["called"] for c in candidates(files, {}, parsed, text, named)}
    # the backticked entry point's own lines call the decoder: one step down; nothing else it reaches is defined here
    assert called == {"Response": 0.0, "iter_content": 0.0, "close": 0.0, "guess_filename": 0.0,
                      "stream_decode_response_unicode": 1.0}
    ranked = [hit.symbol for hit in rank_functions(files, {}, parsed, text, named)]
    assert ranked[:2] == ["Response.iter_content", "stream_decode_response_unicode"]
    assert "called" in rank_functions(files, {}, parsed, text, named)[1].reasons
    # a name a code block merely calls is no entry point the reporter named: its callees stay at 0
    snippet = evidence_of("Bytes come back\n```\nr.iter_content(decode_unicode=True)\n```\n", index)
    assert snippet.names.get("iter_content") == 0.3
    assert all(c.features["called"] == 0.0 for c in candidates(files, {}, parsed, text, snippet))
