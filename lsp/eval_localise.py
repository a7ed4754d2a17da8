"""`fourfold eval INSTANCES.jsonl --localise --root CORPORA`: an issue's text -> the files its fix edits.

The first thing a coding agent does with an issue is find the code to change. Each instance of a
SWE-bench-style file (`instance_id`, `repo`, `problem_statement`, `gold_files`, `gold_functions`,
`release_before`) is asked as it was written, prose, code blocks and tracebacks and all, against the
corpus folder `CORPORA/<project>-<release>/` (bench/fetch_swebench.sh makes them). The user reads, per
system and per group of instances, file hit@1/5/10 (some gold file among the first k distinct files),
all-gold-files recall@10 (every gold file in the first 10), function hit@10 (some gold function among
the first 10 distinct functions of the answer) and how often the top file is no code at all (a
changelog, a CI config), beside a whole-file BM25 over the same files in the same run. A gold method the
searched release holds under another class of the same file is named as the release names it
(`release_named`; the report lists each).

Weights of the engine are tuned on one half of the repositories (`TUNE_REPOS`); both halves are
reported, so a figure that only the tuning half shows is visible as such.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

import bm25s
import numpy as np

from fourfold.engine import DecompositionPart, SearchRequest, Settings, Workspace, parse_settings
from fourfold.engine.index.snapshot import Snapshot
from fourfold.engine.model.languages import DOC_LANGUAGES, detect_language
from fourfold.engine.model.profiles import MAX_QUERY_LENGTH
from fourfold.engine.model.tokens import code_tokens, token_bag
from fourfold.engine.rank.localisation import FUNCTION_KINDS
from fourfold.lsp.evaluation import percentile

__all__ = [
    "Answer",
    "FileBM25",
    "Instance",
    "LocaliseReport",
    "LocaliseRow",
    "add_localise_arguments",
    "cmd_localise",
    "functions_of",
    "is_instances_file",
    "load_instances",
    "print_localise",
    "release_named",
    "run_localise",
    "score",
    "summarise",
]

CUTOFFS = (1, 5, 10)
CUTOFF = 10
# The repositories the decomposition weights were tuned on; the rest is the held-out half.
TUNE_REPOS = frozenset({"pytest-dev/pytest", "sphinx-doc/sphinx", "astropy/astropy", "psf/requests"})
# Whole-file BM25: each file's path words count this many times besides its text (as in lexical.py).
BM25_PATH_WEIGHT = 2
BM25_SYSTEM = "bm25 whole-file"


@dataclass(frozen=True)
class Instance:
    """One issue: its text, the corpus it is asked against, and the files and functions its fix edits."""

    id: str
    repo: str
    release: str
    text: str
    gold_files: tuple[str, ...]
    gold_functions: tuple[tuple[str, str], ...] = ()

    @property
    def corpus(self) -> str:
        """The corpus folder's name: `sympy-1.1.1` for sympy/sympy at release 1.1.1."""
        return f"{self.repo.rsplit('/', 1)[-1]}-{self.release}"

    @property
    def half(self) -> str:
        return "tune half" if self.repo in TUNE_REPOS else "held-out half"


def load_instances(path: Path) -> list[Instance]:
    """Read a SWE-bench-style JSONL file; a line that is not an instance is an error naming the line."""
    instances = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            instances.append(Instance(
                id=str(row["instance_id"]), repo=str(row["repo"]), release=str(row["release_before"]),
                text=str(row["problem_statement"]), gold_files=tuple(row["gold_files"]),
                gold_functions=tuple((str(g["file"]), str(g["span"])) for g in row.get("gold_functions") or ()),
            ))
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{path}:{number}: not an instance ({error})") from error
    return instances


def is_instances_file(path: Path) -> bool:
    """Whether a query file is a localisation set (its first row has a `problem_statement`)."""
    try:
        with path.open(encoding="utf-8") as stream:
            first = next((line for line in stream if line.strip()), "")
        return "problem_statement" in json.loads(first)
    except (OSError, ValueError, TypeError):
        return False


@dataclass(frozen=True)
class Answer:
    """What one system answered for one instance: distinct files and (engine only) functions, best first."""

    instance: Instance
    system: str
    files: tuple[str, ...]
    functions: tuple[tuple[str, str], ...] | None
    ms: float
    strategy: str | None = None
    decomposition: tuple[DecompositionPart, ...] = ()


@dataclass(frozen=True)
class Score:
    hits: Mapping[int, bool]
    all_gold: bool
    function: bool | None
    non_code_top: bool


def _function_matches(found: tuple[str, str], gold: tuple[str, str]) -> bool:
    """Same file, and the qualified name is the gold span (`Class.method`) or ends with it."""
    return found[0] == gold[0] and (found[1] == gold[1] or found[1].endswith("." + gold[1]))


def score(answer: Answer) -> Score:
    gold = set(answer.instance.gold_files)
    files = answer.files[:CUTOFF]
    hits = {k: bool(gold & set(files[:k])) for k in CUTOFFS}
    function = None
    if answer.functions is not None and answer.instance.gold_functions:
        top = answer.functions[:CUTOFF]
        function = any(_function_matches(f, g) for f in top for g in answer.instance.gold_functions)
    return Score(hits, gold <= set(files), function, bool(files) and not is_code(files[0]))


def is_code(path: str) -> bool:
    """A file in a programming language (not documentation, not a changelog, a CI config or a template)."""
    language = detect_language(path)
    return language is not None and language not in DOC_LANGUAGES


@dataclass(frozen=True)
class LocaliseRow:
    """One system's figures over one group of instances (shares, 0..1)."""

    system: str
    group: str
    instances: int
    hit_at: dict[int, float]
    all_gold_at_10: float
    function_at_10: float | None
    function_instances: int
    non_code_top1: int
    empty: int
    p50_ms: float


def summarise(answers: Sequence[Answer], groups: Mapping[str, Callable[[Instance], bool]]) -> list[LocaliseRow]:
    """One row per (group, system), groups in the given order, systems in the order they first answer."""
    systems = list(dict.fromkeys(answer.system for answer in answers))
    rows = []
    for group, member in groups.items():
        for system in systems:
            chosen = [a for a in answers if a.system == system and member(a.instance)]
            if chosen:
                rows.append(_row(system, group, chosen))
    return rows


def _row(system: str, group: str, answers: Sequence[Answer]) -> LocaliseRow:
    scores = [score(answer) for answer in answers]
    functions = [s.function for s in scores if s.function is not None]
    return LocaliseRow(
        system=system,
        group=group,
        instances=len(answers),
        hit_at={k: _share([s.hits[k] for s in scores]) for k in CUTOFFS},
        all_gold_at_10=_share([s.all_gold for s in scores]),
        function_at_10=_share(functions) if functions else None,
        function_instances=len(functions),
        non_code_top1=sum(s.non_code_top for s in scores),
        empty=sum(not answer.files for answer in answers),
        p50_ms=round(percentile([answer.ms for answer in answers], 0.5), 1),
    )


def _share(flags: Sequence[bool]) -> float:
    return round(sum(flags) / len(flags), 4) if flags else 0.0


class FileBM25:
    """The baseline: plain BM25 (bm25s) over whole files with code-aware tokens, path words counted in.

    The run gives it the code files only (no docs, changelogs or configs): the stronger baseline, and
    the usual one for this task (SWE-bench's own BM25 retrieval indexes the Python files)."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        self.paths = sorted(texts)
        corpus = [token_bag(texts[path]) + code_tokens(path.replace("/", " ")) * BM25_PATH_WEIGHT
                  for path in self.paths]
        self.model: bm25s.BM25 | None = None
        if any(corpus):
            self.model = bm25s.BM25()
            self.model.index(corpus, show_progress=False)

    def search(self, query: str, limit: int = CUTOFF) -> tuple[str, ...]:
        if self.model is None:
            return ()
        known = [token for token in code_tokens(query) if token in self.model.vocab_dict]
        if not known:
            return ()
        scores = np.asarray(self.model.get_scores(known), dtype=np.float64)
        order = np.lexsort((np.arange(scores.size), -scores))[:limit]
        return tuple(self.paths[i] for i in order if scores[i] > 0)


def functions_of(snapshot: Snapshot, results: Iterable[Any]) -> tuple[tuple[str, str], ...]:
    """The distinct (file, qualified name) of the functions an answer points at, in answer order: each
    result's own symbol, then the definitions around its other matching ranges."""
    found: dict[tuple[str, str], None] = {}
    for result in results:
        parsed = snapshot.parsed.get(result.path)
        symbols = [s for s in parsed.symbols if s.kind in FUNCTION_KINDS] if parsed is not None else []
        for span in (result.span, *result.matches):
            inner = [s for s in symbols if s.span.start_line <= span.start_line <= s.span.end_line]
            if inner:
                best = max(inner, key=lambda s: (s.span.start_line, -s.span.end_line))
                found.setdefault((result.path, best.qualified or best.name), None)
    return tuple(found)


@dataclass
class LocaliseReport:
    rows: list[LocaliseRow]
    answers: list[Answer]
    missing_gold: list[str] = field(default_factory=list)
    renamed_gold: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    truncated: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": [vars(row) for row in self.rows],
            "missing_gold": self.missing_gold,
            "renamed_gold": self.renamed_gold,
            "skipped": self.skipped,
            "truncated": self.truncated,
            "answers": [{
                "id": a.instance.id, "system": a.system, "gold": list(a.instance.gold_files),
                "files": list(a.files[:CUTOFF]), "functions": [f"{p}::{q}" for p, q in (a.functions or ())[:CUTOFF]],
                "hit@10": score(a).hits[CUTOFF], "strategy": a.strategy, "ms": round(a.ms, 1),
                "decomposition": [dataclasses.asdict(part) for part in a.decomposition],
            } for a in self.answers],
        }


@dataclass(frozen=True)
class LocaliseOptions:
    presets: tuple[str, ...] = ("default",)
    limit: int = CUTOFF
    label: str = ""
    baseline: bool = True


def groups_of(instances: Sequence[Instance]) -> dict[str, Callable[[Instance], bool]]:
    """overall, the two halves, then each repository."""
    groups: dict[str, Callable[[Instance], bool]] = {"overall": lambda i: True,
                                                      "tune half": lambda i: i.repo in TUNE_REPOS,
                                                      "held-out half": lambda i: i.repo not in TUNE_REPOS}
    for repo in sorted({i.repo for i in instances}):
        groups[repo] = _of_repo(repo)
    return groups


def _of_repo(repo: str) -> Callable[[Instance], bool]:
    return lambda instance: instance.repo == repo


def run_localise(
    instances: Sequence[Instance],
    root: Path,
    settings: Settings,
    options: LocaliseOptions,
    index_root: Path | None = None,
    progress: TextIO | None = None,
) -> LocaliseReport:
    """Index each corpus (`root/<project>-<release>`, index in `index_root/<same>`), ask every instance
    of it through the engine and the baseline, and summarise. Gold files a corpus lacks are listed
    (and count as misses); instances whose corpus folder is absent are skipped and listed."""
    by_corpus: dict[str, list[Instance]] = defaultdict(list)
    for instance in instances:
        by_corpus[instance.corpus].append(instance)
    answers: list[Answer] = []
    report = LocaliseReport([], answers)
    for position, (name, group) in enumerate(sorted(by_corpus.items()), 1):
        folder = root / name
        if not folder.is_dir():
            report.skipped.extend(f"{i.id}: no folder {folder}" for i in group)
            continue
        report.missing_gold.extend(f"{i.id}: {name}/{g}" for i in group for g in i.gold_files
                                   if not (folder / g).is_file())
        local = replace(settings, index_dir=str(index_root / name)) if index_root is not None else settings
        started = time.perf_counter()
        answers.extend(_run_corpus(folder, group, local, options, report))
        if progress is not None:
            print(f"[{position}/{len(by_corpus)}] {name}: {len(group)} instance(s), "
                  f"{time.perf_counter() - started:.1f} s", file=progress, flush=True)
    report.rows = summarise(answers, groups_of(instances))
    return report


def _run_corpus(folder: Path, instances: Sequence[Instance], settings: Settings, options: LocaliseOptions,
                report: LocaliseReport) -> list[Answer]:
    workspace = Workspace(folder, settings, background=False)
    try:
        workspace.refresh()
        if settings.semantic_backend != "none":
            workspace.embed_pending()
        answers = []
        snapshot = workspace.snapshot()
        for asked in instances:
            instance, renamed = release_named(asked, snapshot)
            report.renamed_gold.extend(renamed)
            text = instance.text
            if len(text) > MAX_QUERY_LENGTH:
                report.truncated.append(f"{instance.id}: {len(text)} characters, cut to {MAX_QUERY_LENGTH}")
                text = text[:MAX_QUERY_LENGTH]
            for preset in options.presets:
                answers.append(_engine_answer(workspace, instance, text, preset, options))
        if options.baseline:
            bm25 = FileBM25({path: body for path in snapshot.files
                             if is_code(path) and (body := snapshot.text(path)) is not None})
            for instance in instances:
                began = time.perf_counter()
                files = bm25.search(instance.text, options.limit)
                answers.append(Answer(instance, BM25_SYSTEM, files, None, (time.perf_counter() - began) * 1000))
        return answers
    finally:
        workspace.close()


def release_named(instance: Instance, snapshot: Snapshot) -> tuple[Instance, list[str]]:
    """The instance with each gold method that its file in the searched release lacks under the gold's name
    named as that release names it: the one method of that name in the file (`MatrixProperties.is_upper` of the
    base commit is `MatrixBase.is_upper` in sympy 1.0). The gold names come from the fix's base commit, the
    corpus is the release before it, and a class split or renamed in between moves no code the fix edits. A
    name the file lacks or holds more than once stays as it is (a miss). Returns the notes of what was renamed."""
    renamed, notes = [], []
    for path, span in instance.gold_functions:
        parsed = snapshot.parsed.get(path)
        names = [s.qualified or s.name for s in parsed.symbols if s.kind in FUNCTION_KINDS] if parsed else []
        same = [name for name in names if name.rsplit(".", 1)[-1] == span.rsplit(".", 1)[-1]]
        if "." in span and names and not any(_function_matches((path, name), (path, span)) for name in names) \
                and len(same) == 1:
            notes.append(f"{instance.id}: {path}::{span} -> {same[0]}")
            span = same[0]
        renamed.append((path, span))
    return (replace(instance, gold_functions=tuple(renamed)) if notes else instance), notes


def _engine_answer(workspace: Workspace, instance: Instance, text: str, preset: str,
                   options: LocaliseOptions) -> Answer:
    response = workspace.search(SearchRequest(query=text, limit=options.limit, preset=preset))
    files = tuple(dict.fromkeys(result.path for result in response.results))
    # a decomposed answer ranks the functions of its files itself; any other answer is read in order
    functions = (tuple((hit.path, hit.symbol) for hit in response.functions) if response.functions
                 else functions_of(workspace.snapshot(), response.results))
    system = f"fourfold {preset}{f' {options.label}' if options.label else ''}"
    return Answer(instance, system, files, functions, response.timings_ms["total"], response.fusion_strategy,
                  tuple(response.decomposition))


# --- printing and the command line ---------------------------------------------------------------
def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def markdown(rows: Sequence[LocaliseRow]) -> list[str]:
    head = ("group", "system", "n", "hit@1", "hit@5", "hit@10", "all gold@10", "fn hit@10 (n)", "top-1 not code",
            "empty", "p50 ms")
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for row in rows:
        function = "—" if row.function_at_10 is None else f"{_pct(row.function_at_10)} ({row.function_instances})"
        cells = (row.group, row.system, str(row.instances), _pct(row.hit_at[1]), _pct(row.hit_at[5]),
                 _pct(row.hit_at[10]), _pct(row.all_gold_at_10), function, str(row.non_code_top1), str(row.empty),
                 f"{row.p50_ms:.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def print_localise(report: LocaliseReport, out: TextIO) -> None:
    out.write("File localisation (figures in %)\n\n" + "\n".join(markdown(report.rows)) + "\n")
    if report.missing_gold:
        out.write(f"\n{len(report.missing_gold)} gold file(s) absent from their corpus (counted as misses):\n")
        out.write("".join(f"  {item}\n" for item in report.missing_gold))
    if report.renamed_gold:
        out.write(f"\n{len(report.renamed_gold)} gold function(s) named as the searched release names them "
                  "(release_named):\n")
        out.write("".join(f"  {item}\n" for item in report.renamed_gold))
    if report.skipped:
        out.write(f"\n{len(report.skipped)} instance(s) skipped: no corpus folder\n")
        out.write("".join(f"  {item}\n" for item in report.skipped[:20]))
    if report.truncated:
        out.write(f"\n{len(report.truncated)} issue(s) longer than the query limit, cut:\n")
        out.write("".join(f"  {item}\n" for item in report.truncated))


def add_localise_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `fourfold eval --localise` (the rest, --root, --index-dir, --backend, --preset,
    --json and --limit, are eval's own)."""
    parser.add_argument("--localise", action="store_true",
                        help="the query file is a SWE-bench-style localisation set (issue -> files); also "
                             "recognised by its rows; --root holds one folder per <project>-<release>")
    parser.add_argument("--repos", help="localise: only these repositories (comma-separated, e.g. flask,pytest)")
    parser.add_argument("--per-repo", type=int,
                        help="localise: at most this many instances per repository, spread evenly over its list")


def select(instances: Sequence[Instance], repos: str | None, per_repo: int | None) -> list[Instance]:
    """The instances to run: of the named repositories (short or full names), at most `per_repo` of each,
    taken at even steps through the repository's instances so that releases stay represented."""
    wanted = {name.strip() for name in (repos or "").split(",") if name.strip()}
    chosen = [i for i in instances if not wanted or i.repo in wanted or i.repo.rsplit("/", 1)[-1] in wanted]
    if per_repo is None:
        return chosen
    by_repo: dict[str, list[Instance]] = defaultdict(list)
    for instance in chosen:
        by_repo[instance.repo].append(instance)
    kept: set[str] = set()
    for group in by_repo.values():
        count = min(per_repo, len(group))
        kept.update(group[(step * len(group)) // count].id for step in range(count))
    return [i for i in chosen if i.id in kept]


def cmd_localise(args: argparse.Namespace) -> int:
    path = Path(args.queries)
    try:
        instances = select(load_instances(path), args.repos, args.per_repo)
    except (OSError, ValueError) as error:
        print(f"fourfold: cannot read {path}: {error}", file=sys.stderr)
        return 2
    presets = tuple(p.strip() for p in args.preset.split(",") if p.strip())
    backends = tuple(b.strip() for b in args.backend.split(",") if b.strip())
    answers: list[Answer] = []
    report = LocaliseReport([], answers)
    for position, backend in enumerate(backends):
        # A corpus is measured as the tree its recipe fetched, wherever the recipe put it: one under
        # bench/corpora sits in this repository, whose `build/` and `*.egg-info/` rules are not the corpus's.
        settings, errors = parse_settings({"semantic_backend": backend, "parent_ignores": False})
        for message in errors:
            print(f"fourfold: {message}", file=sys.stderr)
        index_root = Path(args.index_dir) if args.index_dir else None
        options = LocaliseOptions(presets, max(args.limit, CUTOFF), backend if len(backends) > 1 else "",
                                  baseline=position == 0)
        run = run_localise(instances, Path(args.root), settings, options, index_root, sys.stderr)
        answers.extend(run.answers)
        report.missing_gold, report.skipped, report.truncated = run.missing_gold, run.skipped, run.truncated
        report.renamed_gold = run.renamed_gold
    report.rows = summarise(answers, groups_of(instances))
    print_localise(report, sys.stdout)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(report.to_dict(), indent=1, ensure_ascii=False) + "\n",
                                       encoding="utf-8")
    return 0
