"""Regenerate bench/queries/rxjs.jsonl: labelled queries over RxJS 7.8.1's TypeScript sources for `fourfold eval`.

The TypeScript corpus of our own query sets (npm's published `src/`, fetched by bench/fetch_rxjs.sh).
Gold answers come from tools independent of the search being measured:
- find_definition: every definition of the name under `src/` found by tree-sitter through
  `fourfold.engine.index.structure.parse_file` (overload signatures included; any one answers);
- find_references: every call of the name (`name(...)`, `x.name(...)`) that parse_file reports;
- impact_analysis: those call sites plus every `import { name } from ...` specifier, found with a
  tree-sitter query of this script's own over the TypeScript grammar;
- exact_match: every line `rg -F` finds the string on.
- find_similar (issue 14, "classes like X"): every other class under `src/` extending X's base, at
  the line of its `extends` (any one answers);
understand_code and the first find_similar rows are hand-checked files; unanswerable queries name things
the corpus does not contain, re-checked with `rg`.

Usage: python bench/make_rxjs_queries.py [--corpus bench/corpora/rxjs-7.8.1] [--out FILE]
"""

from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import tree_sitter as ts
from make_django_queries import Hand, Tables, build_rows, generate

from fourfold.engine.index.structure import parse_file
from fourfold.engine.model.languages import detect_language, grammar

HERE = Path(__file__).resolve().parent
SOURCES = "src/"
IMPORT_SPECIFIERS = "(import_specifier name: (identifier) @name)"

# (id, query, name defined under src/)
DEFINITIONS = [
    ("def-01", "function arrRemove", "arrRemove"),
    ("def-02", "class BehaviorSubject", "BehaviorSubject"),
    ("def-03", "where is executeSchedule defined", "executeSchedule"),
    ("def-04", "createErrorClass", "createErrorClass"),
    ("def-05", "definition of popScheduler", "popScheduler"),
    ("def-06", "where is the firstValueFrom function defined", "firstValueFrom"),
    ("def-07", "isInteropObservable", "isInteropObservable"),
    ("def-08", "dove è definito ReplaySubject", "ReplaySubject"),  # it
    ("def-09", "VirtualTimeScheduler được định nghĩa ở đâu", "VirtualTimeScheduler"),  # vi
    ("def-10", "class AsyncAction", "AsyncAction"),
    ("def-11", "where is the replay subject defined", "ReplaySubject"),  # in plain words
    ("def-12", "where is the async scheduler defined", "AsyncScheduler"),
]

# (id, query, called name)
REFERENCES = [
    ("ref-01", "who calls arrRemove", "arrRemove"),
    ("ref-02", "usages of createErrorClass", "createErrorClass"),
    ("ref-03", "callers of popScheduler", "popScheduler"),
    ("ref-04", "where is mapOneOrManyArgs used", "mapOneOrManyArgs"),
    ("ref-05", "chi chiama argsOrArgArray", "argsOrArgArray"),  # it
    ("ref-06", "ai gọi isScheduler", "isScheduler"),  # vi
]

# (id, query, name whose callers and importers are hit by a change)
IMPACTS = [
    ("imp-01", "what depends on executeSchedule", "executeSchedule"),
    ("imp-02", "impact of changing errorContext", "errorContext"),
    ("imp-03", "what breaks if I change reportUnhandledError", "reportUnhandledError"),
    ("imp-04", "cosa dipende da isScheduler", "isScheduler"),  # it
    ("imp-05", "những gì phụ thuộc vào popScheduler", "popScheduler"),  # vi
]

# (id, query, the literal string; gold is every line rg -F finds it on)
EXACT = [
    ("exa-01", "'Invalid event target'", "Invalid event target"),
    ("exa-02", "'Timeout has occurred'", "Timeout has occurred"),
    ("exa-03", "'Unable to lift unknown Observable type'", "Unable to lift unknown Observable type"),
    ("exa-04", '"no WebSocket constructor can be found"', "no WebSocket constructor can be found"),
    ("exa-05", '"Too many matching values"', "Too many matching values"),
    ("exa-06", '"cold observable cannot have subscription offset"', "cold observable cannot have subscription offset"),
    ("exa-07", 'dove compare "No observable provided to switch to"', "No observable provided to switch to"),  # it
]

UNDERSTAND = [
    Hand("und-01", "how does a stream drop the previous inner subscription when a new value arrives",
         "understand_code", ("src/internal/operators/switchMap.ts",)),
    Hand("und-02", "how are errors that nobody handles reported asynchronously", "understand_code",
         ("src/internal/util/reportUnhandledError.ts", "src/internal/config.ts")),
    Hand("und-03", "how can tests run timers instantly without waiting for real time", "understand_code",
         ("src/internal/scheduler/VirtualTimeScheduler.ts", "src/internal/testing/TestScheduler.ts")),
    Hand("und-04", "how is an HTTP request sent with XMLHttpRequest and its progress events emitted",
         "understand_code", ("src/internal/ajax/ajax.ts",)),
    Hand("und-05", "how does resubscribing after a failure wait before the next attempt", "understand_code",
         ("src/internal/operators/retry.ts", "src/internal/operators/retryWhen.ts")),
    Hand("und-06", "how are teardown callbacks collected and run when unsubscribing", "understand_code",
         ("src/internal/Subscription.ts",)),
    Hand("und-07", "how are marble diagram strings parsed into test notifications", "understand_code",
         ("src/internal/testing/TestScheduler.ts",)),
    Hand("und-08", "come viene limitata la frequenza degli eventi in ingresso", "understand_code",  # it
         ("src/internal/operators/throttle.ts", "src/internal/operators/throttleTime.ts",
          "src/internal/operators/debounce.ts", "src/internal/operators/debounceTime.ts",
          "src/internal/operators/auditTime.ts", "src/internal/operators/audit.ts")),
    Hand("und-09", "come si combinano gli ultimi valori di più flussi", "understand_code",  # it
         ("src/internal/observable/combineLatest.ts", "src/internal/operators/combineLatestWith.ts",
          "src/internal/operators/withLatestFrom.ts")),
    Hand("und-10", "cách chia sẻ một nguồn dữ liệu cho nhiều người đăng ký", "understand_code",  # vi
         ("src/internal/operators/share.ts", "src/internal/operators/shareReplay.ts",
          "src/internal/observable/connectable.ts", "src/internal/operators/multicast.ts",
          "src/internal/Subject.ts")),
]

SIMILAR = [
    Hand("sim-01", "code similar to the bufferTime operator", "find_similar",
         ("src/internal/operators/windowTime.ts", "src/internal/operators/bufferCount.ts",
          "src/internal/operators/bufferToggle.ts", "src/internal/operators/bufferWhen.ts")),
    Hand("sim-02", "operators like debounceTime", "find_similar",
         ("src/internal/operators/throttleTime.ts", "src/internal/operators/auditTime.ts",
          "src/internal/operators/sampleTime.ts", "src/internal/operators/debounce.ts")),
    Hand("sim-03", "schedulers similar to AsapScheduler", "find_similar",
         ("src/internal/scheduler/QueueScheduler.ts", "src/internal/scheduler/AnimationFrameScheduler.ts",
          "src/internal/scheduler/AsyncScheduler.ts")),
    Hand("sim-04", "error classes like EmptyError", "find_similar",
         ("src/internal/util/NotFoundError.ts", "src/internal/util/SequenceError.ts",
          "src/internal/util/ArgumentOutOfRangeError.ts", "src/internal/util/ObjectUnsubscribedError.ts",
          "src/internal/util/UnsubscriptionError.ts")),
]

UNANSWERABLE = [
    Hand("una-01", "where is the reducer combiner defined", "find_definition", (), absent=("combineReducers",)),
    Hand("una-02", "how are database transactions rolled back", "understand_code", (), absent=("rollback",)),
    Hand("una-03", '"ECONNREFUSED"', "exact_match", (), absent=("ECONNREFUSED",)),
    Hand("una-04", "who calls useEffect", "find_references", (), absent=("useEffect",)),
    Hand("una-05", "những gì phụ thuộc vào GraphQLSchema", "impact_analysis", (), absent=("GraphQL",)),  # vi
    # issue 14: names that do not exist, asked every way a target is asked
    Hand("una-06", "where is throttleLatestWithJitter defined", "find_definition", (), absent=("WithJitter",)),
    Hand("una-07", "who calls subscribeWithBackpressure", "find_references", (), absent=("Backpressure",)),
    Hand("una-08", "what depends on ReactiveStreamBridge", "impact_analysis", (), absent=("StreamBridge",)),
    Hand("una-09", "function mergeMapWithRetryBudget", "find_definition", (), absent=("RetryBudget",)),
    Hand("una-10", "chi chiama scheduleOnWorkerThread", "find_references", (), absent=("WorkerThread",)),  # it
    Hand("una-11", "how does the Redux middleware dispatch thunks", "understand_code", (), absent=("Redux",)),
]

# issue 14: "classes like X", gold = the other direct subclasses of X's base (`extends`, by tree-sitter)
SIMILAR_BY_BASE = [
    ("sim-05", "actions like AsapAction", "AsapAction", "AsyncAction"),
    ("sim-06", "subjects similar to BehaviorSubject", "BehaviorSubject", "Subject"),
    ("sim-07", "code like QueueScheduler", "QueueScheduler", "AsyncScheduler"),
    ("sim-08", "simile a ReplaySubject", "ReplaySubject", "Subject"),  # it
    ("sim-09", "tương tự như AnimationFrameAction", "AnimationFrameAction", "AsyncAction"),  # vi
    ("sim-10", "code similar to ColdObservable", "ColdObservable", "Observable"),
]


@dataclass
class TypeScriptFacts:
    """Definitions under src/, call sites and imported names of every `.ts` file, by name (tree-sitter)."""

    definitions: dict[str, list[tuple[str, int]]] = field(default_factory=lambda: defaultdict(list))
    calls: dict[str, list[tuple[str, int]]] = field(default_factory=lambda: defaultdict(list))
    imports: dict[str, list[tuple[str, int]]] = field(default_factory=lambda: defaultdict(list))
    # base class name -> (path, line, class name) of the classes under src/ that extend it
    subclasses: dict[str, list[tuple[str, int, str]]] = field(default_factory=lambda: defaultdict(list))

    @classmethod
    def scan(cls, corpus: Path) -> TypeScriptFacts:
        facts = cls()
        language = grammar("typescript")
        parser = ts.Parser(language)
        specifiers = ts.Query(language, IMPORT_SPECIFIERS)
        for path in sorted(corpus.rglob("*.ts")):
            relative = path.relative_to(corpus).as_posix()
            text = path.read_text(encoding="utf-8")
            parsed = parse_file(relative, text, detect_language(relative))
            for symbol in parsed.symbols:
                if relative.startswith(SOURCES):
                    facts.definitions[symbol.name].append((relative, symbol.name_span.start_line + 1))
            for reference in parsed.references:
                if reference.kind == "call":
                    facts.calls[reference.name].append((relative, reference.span.start_line + 1))
                elif reference.kind == "inherit" and reference.enclosing and relative.startswith(SOURCES):
                    facts.subclasses[reference.name].append((relative, reference.span.start_line + 1,
                                                             reference.enclosing))
            tree = parser.parse(text.encode("utf-8"))
            for node in ts.QueryCursor(specifiers).captures(tree.root_node).get("name", []):
                name = (node.text or b"").decode("utf-8")
                facts.imports[name].append((relative, node.start_point[0] + 1))
        return facts


TABLES = Tables(DEFINITIONS, REFERENCES, IMPACTS, EXACT, (*UNDERSTAND, *SIMILAR), UNANSWERABLE, SIMILAR_BY_BASE)


def build(corpus: Path) -> list[dict[str, object]]:
    return build_rows(corpus, TypeScriptFacts.scan(corpus), TABLES)


def main() -> int:
    return generate(__doc__.splitlines()[0] if __doc__ else None, HERE / "corpora" / "rxjs-7.8.1",
                    HERE / "queries" / "rxjs.jsonl", SOURCES + "index.ts", "fetch_rxjs.sh", build)


if __name__ == "__main__":
    sys.exit(main())
