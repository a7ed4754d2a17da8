"""Regenerate bench/queries/django.jsonl: labelled queries over Django 5.1.4 for `fourfold eval`.

Gold answers are derived mechanically wherever a machine can be trusted with them, so the set can
be re-checked against the corpus at any time:
- find_definition: every `def`/`class` of that name under `django/`, found with `ast` (any one answers);
- find_references: every call of that name (`name(...)` or `x.name(...)`) in the corpus, with `ast`;
- impact_analysis: those call sites plus every `from ... import name` line;
- exact_match: every line `rg -F` finds the string on (the same files ripgrep itself would search).
- find_similar (issue 14, "classes like X"): every other direct subclass of X's base class under
  `django/`, found with `ast`, at its class line (any one answers);
understand_code and the first find_similar rows are hand-checked files (data below); unanswerable
queries name things the corpus does not contain, which this script re-checks with `rg`.

Usage: python bench/make_django_queries.py [--corpus bench/corpora/django-5.1.4] [--out FILE]
(fetch the corpus first with bench/fetch_django.sh).
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

HERE = Path(__file__).resolve().parent
# A gold set larger than this many files is a poor test of a top-10 list; the script refuses it.
MAX_GOLD_FILES = 10

# (id, query, name defined under django/)
DEFINITIONS = [
    ("def-01", "def get_object_or_404", "get_object_or_404"),
    ("def-02", "class QuerySet", "QuerySet"),
    ("def-03", "where is slugify defined", "slugify"),
    ("def-04", "ModelAdmin", "ModelAdmin"),
    ("def-05", "get_user_model", "get_user_model"),
    ("def-06", "definition of int_to_base36", "int_to_base36"),
    ("def-07", "class CsrfViewMiddleware", "CsrfViewMiddleware"),
    ("def-08", "where is the Paginator class defined", "Paginator"),
    ("def-09", "smart_urlquote", "smart_urlquote"),
    ("def-10", "def autodiscover_modules", "autodiscover_modules"),
    ("def-11", "dove è definito get_fields_from_path", "get_fields_from_path"),  # it
    ("def-12", "dove è definito HttpResponsePermanentRedirect", "HttpResponsePermanentRedirect"),  # it
    ("def-13", "UserManager được định nghĩa ở đâu", "UserManager"),  # vi
    ("def-14", "definition of method_has_no_args", "method_has_no_args"),
    ("def-15", "class WSGIHandler", "WSGIHandler"),
    # a definition asked for in plain words, the name the words spell (issue 14: not their first word)
    ("def-16", "where is the session middleware defined", "SessionMiddleware"),
    ("def-17", "where is the cache middleware defined", "CacheMiddleware"),
]

# (id, query, called name)
REFERENCES = [
    ("ref-01", "who calls complex_filter", "complex_filter"),
    ("ref-02", "usages of get_list_display", "get_list_display"),
    ("ref-03", "callers of dec_thread_sharing", "dec_thread_sharing"),
    ("ref-04", "references to create_test_db", "create_test_db"),
    ("ref-05", "who calls deserialize_db_from_string", "deserialize_db_from_string"),
    ("ref-06", "where is get_ordering_field_columns used", "get_ordering_field_columns"),
    ("ref-07", "who calls clear_select_clause", "clear_select_clause"),
    ("ref-08", "chi chiama get_session_cookie_age", "get_session_cookie_age"),  # it
    ("ref-09", "usi di names_digest", "names_digest"),  # it
    ("ref-10", "ai gọi get_expire_at_browser_close", "get_expire_at_browser_close"),  # vi
    ("ref-11", "callers of reset_queries", "reset_queries"),
    ("ref-12", "who calls is_valid_path", "is_valid_path"),
]

# (id, query, name whose callers and importers are hit by a change)
IMPACTS = [
    ("imp-01", "what depends on get_mod_func", "get_mod_func"),
    ("imp-02", "impact of changing autodiscover_modules", "autodiscover_modules"),
    ("imp-03", "what breaks if I change smart_urlquote", "smart_urlquote"),
    ("imp-04", "blast radius of snapshot_files", "snapshot_files"),
    ("imp-05", "cosa dipende da rfc2822_date", "rfc2822_date"),  # it
    ("imp-06", "impatto di get_base_chain", "get_base_chain"),  # it
    ("imp-07", "những gì phụ thuộc vào get_model_class", "get_model_class"),  # vi
    ("imp-08", "what depends on linebreaksbr", "linebreaksbr"),
]

# (id, query, the literal string; gold is every line rg -F finds it on)
EXACT = [
    ("exa-01", '"The SECRET_KEY setting must not be empty."', "The SECRET_KEY setting must not be empty."),
    ("exa-02", '"Apps aren\'t loaded yet."', "Apps aren't loaded yet."),
    ("exa-03", '"populate() isn\'t reentrant"', "populate() isn't reentrant"),
    ("exa-04", '"Cannot filter a query once a slice has been taken."',
     "Cannot filter a query once a slice has been taken."),
    ("exa-05", '"Cannot reorder a query once a slice has been taken."',
     "Cannot reorder a query once a slice has been taken."),
    ("exa-06", '"Negative indexing is not supported."', "Negative indexing is not supported."),
    ("exa-07", '"Invalid HTTP_HOST header"', "Invalid HTTP_HOST header"),
    ("exa-08", '"is not a registered namespace"', "is not a registered namespace"),
    ("exa-09", '"Cannot use None as a query value"', "Cannot use None as a query value"),
    ("exa-10", '"CSRF cookie not set."', "CSRF cookie not set."),
    ("exa-11", '"Conflicting migrations detected"', "Conflicting migrations detected"),
    ("exa-12", '"You cannot access body after reading from request\'s data stream"',
     "You cannot access body after reading from request's data stream"),
    ("exa-13", '"Cannot force an update in save() with no primary key."',
     "Cannot force an update in save() with no primary key."),
    ("exa-14", '"No fixture named"', "No fixture named"),
    ("exa-15", 'dove compare "The included URLconf"', "The included URLconf"),  # it
]


@dataclass(frozen=True)
class Hand:
    """A hand-written question and the files (checked by reading them) that answer it."""

    id: str
    query: str
    intent: str
    files: tuple[str, ...]
    match: str = "any"
    absent: tuple[str, ...] = field(default=())


UNDERSTAND = [
    Hand("und-01", "how does the framework protect forms against cross-site request forgery", "understand_code",
         ("django/middleware/csrf.py",)),
    Hand("und-02", "how are database queries turned into SQL text", "understand_code",
         ("django/db/models/sql/compiler.py",)),
    Hand("und-03", "how does the template engine find template files on disk", "understand_code",
         ("django/template/loaders/filesystem.py", "django/template/loaders/app_directories.py",
          "django/template/engine.py")),
    Hand("und-04", "how are passwords hashed and checked", "understand_code", ("django/contrib/auth/hashers.py",)),
    Hand("und-05", "how does URL routing match a request path to a view", "understand_code",
         ("django/urls/resolvers.py",)),
    Hand("und-06", "how are database schema changes detected between model versions", "understand_code",
         ("django/db/migrations/autodetector.py",)),
    Hand("und-07", "how are signed values protected from tampering", "understand_code", ("django/core/signing.py",)),
    Hand("und-08", "how is the user session stored and expired", "understand_code",
         ("django/contrib/sessions/backends/base.py", "django/contrib/sessions/backends/db.py",
          "django/contrib/sessions/middleware.py")),
    Hand("und-09", "explain how a request flows through middleware to produce a response", "understand_code",
         ("django/core/handlers/base.py",)),
    Hand("und-10", "how are uploaded files streamed to disk when too large for memory", "understand_code",
         ("django/core/files/uploadhandler.py", "django/http/multipartparser.py")),
    Hand("und-11", "how are translations of messages selected for the active language", "understand_code",
         ("django/utils/translation/trans_real.py",)),
    Hand("und-12", "why does the development server restart when code changes", "understand_code",
         ("django/utils/autoreload.py",)),
    Hand("und-13", "come funziona la paginazione dei risultati", "understand_code",  # it
         ("django/core/paginator.py",)),
    Hand("und-14", "perché le date vengono convertite nel fuso orario attivo", "understand_code",  # it
         ("django/utils/timezone.py",)),
    Hand("und-15", "spiega come vengono inviate le email", "understand_code",  # it
         ("django/core/mail/message.py", "django/core/mail/backends/smtp.py", "django/core/mail/__init__.py")),
    Hand("und-16", "giải thích cách bộ nhớ đệm lưu dữ liệu vào tệp", "understand_code",  # vi
         ("django/core/cache/backends/filebased.py",)),
    Hand("und-17", "kiến trúc của hệ thống tín hiệu hoạt động như thế nào", "understand_code",  # vi
         ("django/dispatch/dispatcher.py",)),
]

SIMILAR = [
    Hand("sim-01", "code similar to the file-based cache backend", "find_similar",
         ("django/core/cache/backends/locmem.py", "django/core/cache/backends/db.py",
          "django/core/cache/backends/memcached.py", "django/core/cache/backends/redis.py",
          "django/core/cache/backends/dummy.py")),
    Hand("sim-02", "duplicates of the SMTP email backend", "find_similar",
         ("django/core/mail/backends/console.py", "django/core/mail/backends/filebased.py",
          "django/core/mail/backends/locmem.py", "django/core/mail/backends/dummy.py")),
    Hand("sim-03", "similar to the database session store", "find_similar",
         ("django/contrib/sessions/backends/cache.py", "django/contrib/sessions/backends/cached_db.py",
          "django/contrib/sessions/backends/file.py", "django/contrib/sessions/backends/signed_cookies.py")),
    Hand("sim-04", "similar to the PostgreSQL DatabaseOperations", "find_similar",
         ("django/db/backends/mysql/operations.py", "django/db/backends/sqlite3/operations.py",
          "django/db/backends/oracle/operations.py")),
    Hand("sim-05", "code like the FileSystemStorage class", "find_similar",
         ("django/core/files/storage/memory.py",)),
]

UNANSWERABLE = [
    Hand("una-01", "where is the GraphQL resolver for mutations defined", "find_definition", (), absent=("GraphQL",)),
    Hand("una-02", "how does the Kafka consumer rebalance partitions", "understand_code", (), absent=("Kafka",)),
    Hand("una-03", '"ECONNREFUSED"', "exact_match", (), absent=("ECONNREFUSED",)),
    Hand("una-04", "class KubernetesDeploymentOperator", "find_definition", (),
         absent=("KubernetesDeploymentOperator",)),
    Hand("una-05", "who calls render_react_sidebar", "find_references", (), absent=("render_react_sidebar",)),
    Hand("una-06", "how are gRPC streaming deadlines propagated", "understand_code", (), absent=("gRPC",)),
    Hand("una-07", "what depends on TensorflowModelLoader", "impact_analysis", (), absent=("TensorflowModelLoader",)),
    Hand("una-08", '"blockchain ledger checksum mismatch"', "exact_match", (), absent=("blockchain",)),
    # issue 14: names that do not exist, asked every way a target is asked
    Hand("una-09", "where is render_admin_sidebar_v2 defined", "find_definition", (),
         absent=("render_admin_sidebar",)),
    Hand("una-10", "who calls flush_query_cache_async", "find_references", (), absent=("flush_query_cache",)),
    Hand("una-11", "what depends on LegacyQuerySetAdapter", "impact_analysis", (), absent=("QuerySetAdapter",)),
    Hand("una-12", "class ModelAdminSidebarRegistry", "find_definition", (), absent=("SidebarRegistry",)),
    Hand("una-13", "chi chiama build_sitemap_shards", "find_references", (), absent=("sitemap_shards",)),  # it
    Hand("una-14", "những gì phụ thuộc vào CachedTemplateCompiler", "impact_analysis", (),  # vi
         absent=("TemplateCompiler",)),
    Hand("una-15", "how does the Elasticsearch backend index models", "understand_code", (),
         absent=("Elasticsearch",)),
    Hand("una-16", "dove è definito QueryPlanVisualizer", "find_definition", (), absent=("QueryPlanVisualizer",)),  # it
]

# issue 14: "classes like X", gold derived from the class hierarchy (see the module docstring)
SIMILAR_BY_BASE = [
    ("sim-06", "code similar to the CookieStorage message backend", "CookieStorage", "BaseStorage"),
    ("sim-07", "code like ASGIHandler", "ASGIHandler", "BaseHandler"),
    ("sim-08", "template engines similar to Jinja2", "Jinja2", "BaseEngine"),
    ("sim-09", "simile a FlatPageSitemap", "FlatPageSitemap", "Sitemap"),  # it
    ("sim-10", "tương tự như PostGISOperations", "PostGISOperations", "BaseSpatialOperations"),  # vi
    ("sim-11", "duplicates of OracleSpatialRefSys", "OracleSpatialRefSys", "SpatialRefSysMixin"),
    ("sim-12", "admin classes like GroupAdmin", "GroupAdmin", "ModelAdmin"),
    ("sim-13", "warnings similar to CacheKeyWarning", "CacheKeyWarning", "RuntimeWarning"),
]


@dataclass
class PythonFacts:
    """Definitions under the package folder, call sites and `from ... import` lines of the whole corpus, by name."""

    definitions: dict[str, list[tuple[str, int]]] = field(default_factory=lambda: defaultdict(list))
    calls: dict[str, list[tuple[str, int]]] = field(default_factory=lambda: defaultdict(list))
    imports: dict[str, list[tuple[str, int]]] = field(default_factory=lambda: defaultdict(list))
    # base class name -> (path, line, class name) of its direct subclasses under the package
    subclasses: dict[str, list[tuple[str, int, str]]] = field(default_factory=lambda: defaultdict(list))

    @classmethod
    def scan(cls, corpus: Path, package: str = "django/") -> PythonFacts:
        """Parse every `.py` file of `corpus`; definitions count only under `package` (the library, not its tests)."""
        facts = cls()
        for path in sorted(corpus.rglob("*.py")):
            relative = path.relative_to(corpus).as_posix()
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError, FileNotFoundError):
                continue  # test fixtures with deliberately broken code; a file removed while scanning
            facts._add(relative, tree, package)
        return facts

    def _add(self, path: str, tree: ast.AST, package: str) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and path.startswith(package):
                self.definitions[node.name].append((path, node.lineno))
                if isinstance(node, ast.ClassDef):
                    for base in node.bases:
                        name = _called_name(base)
                        if name:
                            self.subclasses[name].append((path, node.lineno, node.name))
            elif isinstance(node, ast.Call):
                name = _called_name(node.func)
                if name:
                    self.calls[name].append((path, node.lineno))
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    self.imports[alias.name].append((path, node.lineno))


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def rg_lines(corpus: Path, literal: str) -> list[tuple[str, int]]:
    completed = subprocess.run(["rg", "-F", "-n", "--no-heading", "--with-filename", "--", literal, "."],
                               cwd=corpus, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False)
    found = []
    for row in completed.stdout.splitlines():
        path, _, rest = row.partition(":")
        number = rest.partition(":")[0]
        if number.isdigit():
            found.append((path.removeprefix("./"), int(number)))
    return sorted(found)


def row(id_: str, query: str, intent: str, gold: Sequence[tuple[str, int | None]], match: str,
        answerable: bool = True) -> dict[str, object]:
    files = {path for path, _ in gold}
    if answerable and not gold:
        raise SystemExit(f"{id_}: no gold found for {query!r}")
    if len(files) > MAX_GOLD_FILES:
        raise SystemExit(f"{id_}: {len(files)} gold files for {query!r} (limit {MAX_GOLD_FILES}); pick another")
    return {"id": id_, "query": query, "intent": intent,
            "gold": [{"path": path, "line": line} for path, line in sorted(set(gold), key=lambda g: (g[0], g[1] or 0))],
            "match": match, "answerable": answerable}


class Facts(Protocol):
    """What a corpus scan yields for the mechanical gold: definition, call and import sites by name."""

    definitions: Mapping[str, Sequence[tuple[str, int]]]
    calls: Mapping[str, list[tuple[str, int]]]
    imports: Mapping[str, list[tuple[str, int]]]
    subclasses: Mapping[str, Sequence[tuple[str, int, str]]]


@dataclass(frozen=True)
class Tables:
    """One query set as data: the mechanical rows by intent, then the hand-checked ones."""

    definitions: Sequence[tuple[str, str, str]]
    references: Sequence[tuple[str, str, str]]
    impacts: Sequence[tuple[str, str, str]]
    exact: Sequence[tuple[str, str, str]]
    hand: Sequence[Hand]
    unanswerable: Sequence[Hand]
    # (id, query, seed class, its base): gold = the base's other direct subclasses
    similar: Sequence[tuple[str, str, str, str]] = ()


def build_rows(corpus: Path, facts: Facts, tables: Tables) -> list[dict[str, object]]:
    """The JSONL rows of a set: gold from the scan and `rg`, hand-checked gold verified to exist."""
    rows = [row(i, q, "find_definition", list(facts.definitions[name]), "any") for i, q, name in tables.definitions]
    rows += [row(i, q, "find_references", list(facts.calls[name]), "all") for i, q, name in tables.references]
    rows += [row(i, q, "impact_analysis", facts.calls[name] + facts.imports[name], "all")
             for i, q, name in tables.impacts]
    rows += [row(i, q, "exact_match", list(rg_lines(corpus, literal)), "all") for i, q, literal in tables.exact]
    for hand in tables.hand:
        missing = [path for path in hand.files if not (corpus / path).is_file()]
        if missing:
            raise SystemExit(f"{hand.id}: hand-checked gold {missing} is not in the corpus")
        rows.append(row(hand.id, hand.query, hand.intent, [(path, None) for path in hand.files], hand.match))
    for id_, query, seed, base in tables.similar:
        siblings = facts.subclasses.get(base, ())
        if seed not in {name for _, _, name in siblings}:
            raise SystemExit(f"{id_}: {seed} is not a subclass of {base}")
        rows.append(row(id_, query, "find_similar", [(path, line) for path, line, name in siblings if name != seed],
                        "any"))
    for hand in tables.unanswerable:
        present = [term for term in hand.absent if rg_lines(corpus, term)]
        if present:
            raise SystemExit(f"{hand.id}: {present} occurs in the corpus; the query is answerable")
        rows.append(row(hand.id, hand.query, hand.intent, [], "any", answerable=False))
    return rows


def generate(description: str | None, corpus: Path, out: Path, marker: str, fetch: str,
             build: Callable[[Path], list[dict[str, object]]]) -> int:
    """The command line shared by the generators: check the corpus is there, build, write the JSONL."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--corpus", type=Path, default=corpus)
    parser.add_argument("--out", type=Path, default=out)
    args = parser.parse_args()
    if not (args.corpus / marker).is_file():
        print(f"no corpus at {args.corpus}; run bench/{fetch} first", file=sys.stderr)
        return 2
    rows = build(args.corpus)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} queries to {args.out}")
    return 0


TABLES = Tables(DEFINITIONS, REFERENCES, IMPACTS, EXACT, (*UNDERSTAND, *SIMILAR), UNANSWERABLE, SIMILAR_BY_BASE)


def build(corpus: Path) -> list[dict[str, object]]:
    return build_rows(corpus, PythonFacts.scan(corpus), TABLES)


def main() -> int:
    return generate(__doc__.splitlines()[0] if __doc__ else None, HERE / "corpora" / "django-5.1.4",
                    HERE / "queries" / "django.jsonl", "django/__init__.py", "fetch_django.sh", build)


if __name__ == "__main__":
    sys.exit(main())
