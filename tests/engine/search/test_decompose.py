"""Issue-sized queries: how a long text is split, checked against the index, run and fused (search/decompose.py)."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from tree import indexed_workspace

from fourfold.engine import SearchError, SearchRequest, Workspace
from fourfold.engine.index.structure import parse_file
from fourfold.engine.model.profiles import FIND_DEFINITION, MAX_QUERY_LENGTH, UNDERSTAND_CODE
from fourfold.engine.model.records import Span
from fourfold.engine.query.request import Ranking
from fourfold.engine.rank.fusion import FusedResult
from fourfold.engine.search.decompose import (
    FILE,
    IDENTIFIER,
    MAX_DEFINITIONS,
    PROSE,
    Part,
    PartResult,
    callee_files,
    evidence_of,
    fill_tail,
    fuse_files,
    issue_language,
    issue_prior,
    module_files,
    part_request,
    plan,
    resolve_path,
    should_decompose,
    split,
)

TRACEBACK_ISSUE = textwrap.dedent('''\
    Writing a table with header_rows fails for the rst format
    Writing to RST with `header_rows` raises instead of printing two header lines.

    ```python
    >>> from astropy.io.ascii.rst import RST
    >>> tbl.write(sys.stdout, format="ascii.rst", header_rows=["name", "unit"])
    Traceback (most recent call last):
      File "<stdin>", line 1, in <module>
      File "/usr/lib/python3/dist-packages/astropy/table/connect.py", line 129, in __call__
        self.registry.write(instance, *args, **kwargs)
      File "/usr/lib/python3/dist-packages/astropy/io/registry/core.py", line 369, in write
        return writer(data, *args, **kwargs)
    TypeError: RST.__init__() got an unexpected keyword argument 'header_rows'
    ```

    It works with "ascii.fixed_width" already.
    ''')


@pytest.mark.parametrize(("query", "expected"), [
    ("where is parse_config defined", False),
    ("how does retry work\nand why", False),  # two lines of prose: one question, classified as usual
    ("x " * 200, True),  # long
    ("boom\nTraceback (most recent call last):\n  File \"a.py\", line 3, in f", True),
    ("it fails\n```\nf(1)\n```", True),
])
def test_which_texts_are_decomposed(query: str, expected: bool) -> None:
    assert should_decompose(query) is expected


def test_split_reads_prose_frames_modules_names_errors_and_quotes() -> None:
    found = split(TRACEBACK_ISSUE)
    assert found.prose.startswith("Writing a table with header_rows fails for the rst format Writing to RST")
    assert "It works with" in found.body
    # innermost frame first; `<stdin>` is not a file
    assert found.files[:2] == ("/usr/lib/python3/dist-packages/astropy/io/registry/core.py",
                               "/usr/lib/python3/dist-packages/astropy/table/connect.py")
    assert "astropy.io.ascii.rst" in found.modules
    assert found.names[0] == "header_rows"  # backticked: stated most strongly
    assert {"write", "__call__", "RST"} <= set(found.names)
    assert found.errors == ("got an unexpected keyword argument",)
    assert "ascii.fixed_width" in found.quotes


DIAGNOSTICS = textwrap.dedent('''\
    The build now complains about an option it used to accept

    ```
    Warning, treated as error:
    ../../docs/trace.rst.inc:4:Malformed option description '[enable=]PATTERN', should look like "opt"
    src/app.py:12:5: E1101: Instance of 'Node' has no member 'size' (no-member)
    src/_pytest/runner.py:341: in from_call
    test_foo.py:7: AssertionError
    ```
    ''')


def test_split_reads_the_messages_of_path_line_diagnostics() -> None:
    """A doc builder's or linter's `path:line[:col]: message` is an error message like an exception's; pytest's
    `path:line: in f` (a frame) and `path:line: AssertionError` (a bare class name) are not."""
    errors = set(split(DIAGNOSTICS).errors)
    assert errors == {"Malformed option description", "has no member"}


NOTEBOOK_TRACEBACKS = textwrap.dedent('''\
    Color mapping fails with boolean data

    ```python-traceback
    File ~/code/seaborn/seaborn/_core/plot.py:1252, in Plotter._setup_scales(self, p, common, layers, variables)
       1250     self._scales[var] = Scale._identity()
    -> 1252     self._scales[var] = scale._setup(var_df[var], prop)
    File ~/code/seaborn/seaborn/_core/scales.py:351, in ContinuousBase._setup(self, data, prop, axis)
        350 b = forward(vmax) - forward(vmin)
    TypeError: numpy boolean subtract, the `-` operator, is not supported
    ```

    An older notebook says it thus:

    ```
    /usr/local/lib/python3.8/dist-packages/sympy/printing/mathml.py in mathml(expr, printer, **settings)
       1917     return MathMLPresentationPrinter(settings).doprint(expr)
    ```
    ''')


def test_split_reads_notebook_traceback_frames() -> None:
    found = split(NOTEBOOK_TRACEBACKS)
    # IPython 8 (`File path:line, in Class.method(...)`) and older IPython (`path in function(...)`), innermost first
    assert found.frames == (("/usr/local/lib/python3.8/dist-packages/sympy/printing/mathml.py", "mathml"),
                            ("~/code/seaborn/seaborn/_core/scales.py", "_setup"),
                            ("~/code/seaborn/seaborn/_core/plot.py", "_setup_scales"))
    assert found.files[:3] == ("/usr/local/lib/python3.8/dist-packages/sympy/printing/mathml.py",
                               "~/code/seaborn/seaborn/_core/scales.py", "~/code/seaborn/seaborn/_core/plot.py")
    assert found.stated["_setup"] == found.stated["mathml"] == 1.0  # a frame's function: stated strongly
    files = {"seaborn/_core/scales.py", "seaborn/_core/plot.py", "sympy/printing/mathml.py"}
    assert evidence_of(NOTEBOOK_TRACEBACKS, files).frames == {
        "seaborn/_core/scales.py": frozenset({"_setup"}), "seaborn/_core/plot.py": frozenset({"_setup_scales"}),
        "sympy/printing/mathml.py": frozenset({"mathml"})}


@pytest.mark.parametrize(("named", "expected"), [
    ("/usr/lib/python3/dist-packages/astropy/table/connect.py", ("astropy/table/connect.py",)),
    ("site-packages/astropy/io/registry/core.py", ("astropy/io/registry/core.py",)),
    ("connect.py", ("astropy/table/connect.py",)),  # a bare name that names one file
    ("core.py", ()),  # a bare name that names two: ambiguous
    ("__init__.py", ()),  # generic
    ("/home/me/project/other.py", ()),
])
def test_named_paths_resolve_by_suffix(named: str, expected: tuple[str, ...]) -> None:
    files = ["astropy/table/connect.py", "astropy/io/registry/core.py", "astropy/units/core.py",
             "astropy/__init__.py"]
    by_name: dict[str, list[str]] = {}
    for path in files:
        by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    assert resolve_path(named, files, by_name) == expected


@pytest.mark.parametrize(("module", "expected"), [
    ("astropy.io.ascii.rst", ("astropy/io/ascii/rst.py",)),
    ("flask.json", ("src/flask/json/__init__.py",)),
    ("numpy.linalg", ()),
])
def test_imported_modules_resolve_to_files(module: str, expected: tuple[str, ...]) -> None:
    files = {"astropy/io/ascii/rst.py", "src/flask/json/__init__.py"}
    assert module_files(module, files) == expected


def test_plan_keeps_what_the_index_knows() -> None:
    files = ["astropy/table/connect.py", "astropy/io/registry/core.py", "astropy/io/ascii/rst.py"]
    defined = {"RST": ["astropy/io/ascii/rst.py"], "write": [f"w{i}.py" for i in range(MAX_DEFINITIONS + 1)],
               "__call__": ["astropy/table/connect.py"]}
    parts = plan(TRACEBACK_ISSUE, files, lambda name: defined.get(name, []))
    by_source: dict[str, list[Part]] = {}
    for part in parts:
        by_source.setdefault(part.source, []).append(part)
    assert by_source[PROSE][0].intent == "understand_code"
    assert [p.paths for p in by_source[FILE]] == [("astropy/io/registry/core.py",), ("astropy/table/connect.py",)]
    assert [p.paths for p in by_source["module"]] == [("astropy/io/ascii/rst.py",)]
    names = [p.query for p in by_source[IDENTIFIER]]
    assert "RST" in names and "__call__" in names
    assert next(p for p in by_source[IDENTIFIER] if p.query == "RST").within == ("astropy/io/ascii/rst.py",)
    assert "write" not in names  # defined in too many files to say where to look
    assert "header_rows" not in names  # defined nowhere
    assert all(p.intent == "find_definition" for p in by_source[IDENTIFIER])
    assert [p.intent for p in parts if p.source == "error"] == ["exact_match"]


def _result(path: str, line: int = 0, contributions: dict[str, float] | None = None) -> FusedResult:
    return FusedResult(path=path, span=Span(line, 0, line + 1, 0), symbol=None, kind=None, language="python",
                       snippet="", score=1.0, contributions=contributions or {}, ranks={}, boost=1.0, demoted=False)


def test_contributions_are_split_over_the_retrievers_that_found_the_file() -> None:
    prose = PartResult(Part(PROSE, "q", "understand_code", 1.0),
                       (_result("a.py", contributions={"text": 0.03, "structural": 0.01}),))
    named = PartResult(Part(FILE, "a.py", "find_definition", 1.0, ("a.py",)), (_result("a.py"),))
    [fused] = fuse_files([prose, named], k=10)
    assert fused.contributions == pytest.approx({"text": 0.75 / 11, "structural": 0.25 / 11, "named": 1.0 / 11})
    assert sum(fused.contributions.values()) == pytest.approx(fused.score)


def test_fusion_is_weighted_rrf_over_files_with_the_prior() -> None:
    prose = PartResult(Part(PROSE, "q", "understand_code", 1.0), (_result("a.py"), _result("b.py"), _result("a.py", 9)))
    named = PartResult(Part(FILE, "b.py", "find_definition", 0.5, ("b.py",)), (_result("b.py", 4),))
    fused = fuse_files([prose, named], k=10, prior=lambda path: 0.5 if path == "c.py" else 1.0)
    scores = {result.path: result.score for result in fused}
    assert scores["a.py"] == pytest.approx(1.0 / 11)  # a file counts once per part, at its best place
    assert scores["b.py"] == pytest.approx(1.0 / 12 + 0.5 / 11)
    assert [result.path for result in fused] == ["b.py", "a.py"]
    b = fused[0]
    assert b.contributions == pytest.approx({"named": 1.0 / 12 + 0.5 / 11})  # the stand-in results credit no modality
    assert b.ranks == {PROSE: 1, FILE: 0}
    assert b.span == Span(0, 0, 1, 0) and Span(4, 0, 5, 0) in b.matches  # the searched place, the named one a match


def test_a_searched_place_stands_for_a_file_before_a_named_one() -> None:
    named = PartResult(Part(FILE, "b.py", "find_definition", 5.0, ("b.py",)), (_result("b.py", 0),))
    identifier = PartResult(Part(IDENTIFIER, "f", "find_definition", 0.1), (_result("b.py", 7),))
    fused = fuse_files([named, identifier], k=10)
    assert fused[0].span == Span(7, 0, 8, 0)
    assert fused[0].score == pytest.approx(5.0 / 11 + 0.1 / 11)


def test_prior_lowers_a_file_in_the_fusion() -> None:
    prose = PartResult(Part(PROSE, "q", "understand_code", 1.0), (_result("CHANGES"), _result("core.py")))
    fused = fuse_files([prose], k=10, prior=lambda path: 0.3 if path == "CHANGES" else 1.0)
    assert [result.path for result in fused] == ["core.py", "CHANGES"]


# --- through the engine --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    root = tmp_path_factory.mktemp("astropy")
    files = {
        "astropy/table/connect.py": "class TableWrite:\n    def __call__(self, *args, **kwargs):\n"
                                    "        self.registry.write(self, *args, **kwargs)\n",
        "astropy/io/registry/core.py": "def write(data, *args, **kwargs):\n    return writer(data, *args)\n",
        "astropy/io/ascii/rst.py": "class RST(FixedWidth):\n    '''reStructuredText simple table format\n"
                                   "    header rows are written as two lines'''\n"
                                   "    def __init__(self):\n        super().__init__(delimiter_pad=None)\n",
        "astropy/io/ascii/fixedwidth.py": "class FixedWidth:\n    def __init__(self, header_rows=None):\n"
                                          "        self.header_rows = header_rows\n",
        "CHANGES.rst": "Writing a table with header_rows to rst format now fails for the rst format header rows\n" * 5,
        ".github/ISSUE_TEMPLATE/bug.yml": "name: Writing a table fails for the rst format header rows\n" * 5,
    }
    opened = indexed_workspace(root, files, root.parent / "astropy-index")
    yield opened
    opened.close()


def test_an_issue_is_decomposed_and_explains_itself(workspace: Workspace) -> None:
    result = workspace.search_dict(SearchRequest(TRACEBACK_ISSUE, limit=10))
    assert result["fusion_strategy"] == "decomposed"
    assert result["rule"] == "decomposed"
    sources = {part["source"] for part in result["decomposition"]}
    assert {"prose", "file", "module", "identifier", "error"} <= sources
    for part in result["decomposition"]:
        assert set(part) >= {"query", "intent", "weight", "hits"}
    assert any(note.startswith("decomposed into") for note in result["notes"])
    paths = [row["path"] for row in result["results"]]
    assert paths[0].startswith("astropy/")  # not the changelog, not the issue template
    assert "astropy/io/ascii/rst.py" in paths[:3]
    assert len(paths) == len(set(paths))  # one entry per file


def test_a_quote_no_longer_decides_the_route_of_a_long_issue(workspace: Workspace) -> None:
    text = ('"header_rows" is ignored when writing. ' + "The rst writer should accept header rows like fixed "
            "width does, but the header rows never reach the RST class when a table is written. ") * 3
    response = workspace.search(SearchRequest(text, limit=10))
    assert response.fusion_strategy == "decomposed"
    assert response.results and response.results[0].path.startswith("astropy/io/ascii/")


def test_a_long_text_that_names_nothing_known_still_answers(workspace: Workspace) -> None:
    text = "Something about reStructuredText simple tables went wrong for me today, " * 6
    response = workspace.search(SearchRequest(text, limit=5))
    assert response.fusion_strategy == "decomposed"
    assert response.results  # never empty for an answerable text


def test_request_filters_apply_to_named_files(workspace: Workspace) -> None:
    response = workspace.search(SearchRequest(TRACEBACK_ISSUE, limit=10, paths=("astropy/io/**",)))
    assert response.results
    assert all(result.path.startswith("astropy/io/") for result in response.results)


def test_pinned_intent_is_not_decomposed(workspace: Workspace) -> None:
    response = workspace.search(SearchRequest(TRACEBACK_ISSUE, limit=5, intent="exact_match"))
    assert response.fusion_strategy != "decomposed"
    assert not response.decomposition


def test_query_length_limit_fits_real_issues() -> None:
    SearchRequest("x" * 20_000).validate()
    with pytest.raises(SearchError, match=f"the limit is {MAX_QUERY_LENGTH}"):
        SearchRequest("x" * (MAX_QUERY_LENGTH + 1)).validate()


def test_short_questions_are_untouched(workspace: Workspace, tmp_path: Path) -> None:
    response = workspace.search(SearchRequest("RST", limit=5))
    assert response.fusion_strategy != "decomposed"
    assert response.results[0].path == "astropy/io/ascii/rst.py"


@pytest.mark.parametrize(("path", "factor"), [
    ("sphinx/domains/std.py", 1.0),
    ("CHANGES", 0.3),  # no code at all
    (".github/ISSUE_TEMPLATE/bug.yml", 0.3),
    ("doc/usage.rst", 0.5 * 0.3),  # documentation: the understanding prior and the non-code one
    ("sphinx/themes/basic/static/jquery-3.5.1.js", 0.5),  # code, but not the issue's language
    ("tests/test_build.py", 0.3),
])
def test_issue_prior_lowers_what_an_issue_is_not_fixed_in(path: str, factor: float) -> None:
    assert issue_prior("the std domain warns", "python")(path) == pytest.approx(factor)


def test_an_issue_that_speaks_of_tests_is_still_not_fixed_in_one() -> None:
    prior = issue_prior("skipping a test with a fixture reports the wrong location", "python")
    assert prior("tests/test_skipping.py") == pytest.approx(0.3)
    assert prior("src/_pytest/skipping.py") == 1.0


def test_issue_language_comes_from_named_files_and_definitions_else_the_index() -> None:
    languages = {"a.py": "python", "b.py": "python", "lib.js": "javascript", "x.js": "javascript",
                 "y.js": "javascript", "README.md": "markdown"}
    named = PartResult(Part(FILE, "a.py", "find_definition", 1.0, ("a.py",)), ())
    defined = PartResult(Part(IDENTIFIER, "f", "find_definition", 1.0, (), ("b.py", "lib.js")), ())
    prose = PartResult(Part(PROSE, "q", "understand_code", 1.0), ())
    assert issue_language([named, defined, prose], languages) == "python"
    assert issue_language([prose], languages) == "javascript"  # no evidence: most of the index


def test_a_decomposed_answer_ranks_the_functions_of_its_files(workspace: Workspace) -> None:
    result = workspace.search_dict(SearchRequest(TRACEBACK_ISSUE, limit=10))
    functions = result["functions"]
    assert functions and all(set(row) >= {"path", "symbol", "kind", "range", "score", "why"} for row in functions)
    files = [row["path"] for row in result["results"]]
    assert {row["path"] for row in functions} <= set(files)
    scores = [row["score"] for row in functions]
    assert scores == sorted(scores, reverse=True)
    top = {row["symbol"]: row["why"] for row in functions[:4]}
    assert "frame" in top["TableWrite.__call__"] and "frame" in top["write"]  # the traceback's own frames
    # the stated class by its method; its own lines (header, attributes) are not credited with its name
    assert "named" in top["RST.__init__"] and "named" not in top.get("RST", ["named"])


def test_a_part_of_an_issue_adds_no_short_forms_nor_file_agreement_nor_said_files_and_keeps_the_other_switches(
) -> None:
    request = SearchRequest("a pasted issue", ranking=Ranking(path_terms=False))
    for part in (Part(PROSE, "how the header rows are written", UNDERSTAND_CODE, 1.0),
                 Part(IDENTIFIER, "header_rows", FIND_DEFINITION, 1.0)):
        ranking = part_request(part, request, "default", semantic=False).ranking
        assert ranking.abbreviations is False  # an issue's hundreds of words, each with its short forms, blur
        assert ranking.file_agreement is False  # they find most files at several chunks
        assert ranking.said_files is False  # and say most files' stems
        assert ranking.acronyms is False  # and spell most three-letter names by chance
        assert ranking.path_terms is False and ranking.definitions is True  # the caller's other switches stand
    assert SearchRequest("how are the header rows written").ranking.abbreviations is True
    assert SearchRequest("how are the header rows written").ranking.file_agreement is True
    assert SearchRequest("how are the header rows written").ranking.said_files is True
    assert SearchRequest("how are the header rows written").ranking.acronyms is True


def test_a_call_graph_step_reaches_the_files_the_stated_definitions_call(tmp_path: Path) -> None:
    sources = {
        "pkg/api.py": "from .util import normalise, render\n\n\n"
                      "def latex(expr):\n    return render(normalise(expr)) + escape(expr)\n\n\n"
                      "def unrelated(x):\n    return cleanup(x)\n",
        "pkg/util.py": "def normalise(expr):\n    return expr\n",
        "pkg/printing.py": "def render(expr):\n    return str(expr)\n\n\n"
                           "def escape(expr):\n    return expr\n\n\ndef cleanup(x):\n    return x\n",
        "tests/test_api.py": "def render(expr):\n    return expr\n",
    }
    for path, body in sources.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(body)
    parsed = {path: parse_file(path, (tmp_path / path).read_text(), "python") for path in sources}
    defined: dict[str, set[str]] = {}
    for path, structure in parsed.items():
        for symbol in structure.symbols:
            defined.setdefault(symbol.name, set()).add(path)
    parts = [Part(PROSE, "latex prints wrongly", UNDERSTAND_CODE, 1.0),
             Part(IDENTIFIER, "latex", FIND_DEFINITION, 0.5, within=("pkg/api.py",))]
    reached = callee_files(parts, parsed.get, lambda name: defined.get(name, set()), "latex prints wrongly")
    # what `latex` calls, not what its neighbour `unrelated` calls; never the test's copy, nor api.py again
    assert set(reached) == {"pkg/util.py", "pkg/printing.py"}
    assert reached[0] == "pkg/printing.py"  # reached by two of the calls, util.py by one
    assert callee_files(parts, parsed.get, lambda name: defined.get(name, set()), limit=1) == ("pkg/printing.py",)
    assert callee_files(parts[:1], parsed.get, lambda name: defined.get(name, set())) == ()


def test_the_call_graph_step_only_decides_the_tail() -> None:
    fused = [replace(_result(f"f{n}.py"), score=1.0 - n / 10) for n in range(8)]  # 1.0, 0.9, ... 0.3
    reached = [replace(_result(path), score=score) for path, score in
               (("f0.py", 0.5), ("f7.py", 0.5), ("helper.py", 0.45), ("f1.py", 0.9))]
    order = [result.path for result in fill_tail(fused, reached, head=3)]
    # the head stays, whatever the step says of its files; f7 (0.3 + 0.5) passes f3..f6; a file no
    # part found joins the tail at its own score
    assert order == ["f0.py", "f1.py", "f2.py", "f7.py", "f3.py", "f4.py", "f5.py", "helper.py", "f6.py"]
    assert next(r for r in fill_tail(fused, reached, head=3) if r.path == "f7.py").score == pytest.approx(0.8)
    assert [r.path for r in fill_tail(fused, [], head=3)] == [r.path for r in fused]


def test_a_decomposed_answer_takes_one_call_graph_step(tmp_path: Path) -> None:
    files = {
        "pkg/api.py": "from .helpers import _escape_rows\n\n\ndef latex(expr):\n    '''Render an expression.'''\n"
                      "    return _escape_rows(expr)\n",
        "pkg/helpers.py": "def _escape_rows(expr):\n    return [str(row) for row in expr]\n",
        "pkg/other.py": "def unrelated():\n    return 'an expression printed in latex'\n",
    }
    workspace = indexed_workspace(tmp_path / "repo", files, tmp_path / "index")
    try:
        issue = ("The latex printer renders an expression wrongly when it is printed to LaTeX. "
                 "Calling `latex` on a matrix expression gives output that does not compile. " * 3)
        result = workspace.search_dict(SearchRequest(issue, limit=10))
    finally:
        workspace.close()
    assert result["fusion_strategy"] == "decomposed"
    steps = [part for part in result["decomposition"] if part["source"] == "callee"]
    assert steps and steps[0]["top"] == ["pkg/helpers.py"]
    paths = [row["path"] for row in result["results"]]
    assert "pkg/helpers.py" in paths and paths.index("pkg/helpers.py") > paths.index("pkg/api.py")
