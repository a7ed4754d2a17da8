"""Regenerate bench/queries/polyglot.jsonl: queries in Haskell, Lua, Elixir, Bash, Perl and OCaml over
pinned Debian source packages (bench/fetch_debian.sh), every intent, gold derived mechanically.

Gold answers come from the structural pass (`fourfold.engine.index.structure.parse_file`, real tree-sitter
grammars) and from plain string search, never from the search being measured:
- find_definition: the name line of a class/function/type/macro/module defined once in its package;
- find_references and impact_analysis: every call of such a name that parse_file reports (impact
  also counts the definitions making those calls, at their name lines);
- exact_match: every line holding a string literal's text (found by `str.find`, as `rg -F` would);
- understand_code: a definition's doc comment, first sentence, as the question; its file is the gold;
- find_similar: "code similar to X" where X's name is defined in several files of the package; the
  other files defining it are the gold;
- unanswerable (issue 14's honest "not found"): a definition, references and impact query for a name
  from a fixed list of foreign topics, spelled in the package's style, and one question about a
  foreign topic; each kept only if its name (any case, snake or camel) or its topic noun occurs
  nowhere in the text of the whole set (the corpus the queries are asked of).
Picks are deterministic (every n-th candidate in path order), so the file only changes with the
corpus or this script. A rerun keeps every row whose id the file already has, as it is (labels are frozen
once made: a better parser must not move the queries it is measured on), and appends the new ones.
Paths are relative to bench/corpora/debian-polyglot.

Usage: python bench/make_polyglot_queries.py [--corpus bench/corpora/debian-polyglot] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from fourfold.engine.index.structure import parse_file
from fourfold.engine.model.languages import detect_language
from fourfold.engine.model.records import ParsedFile, Symbol

HERE = Path(__file__).resolve().parent
# Package folder -> (language, queries per intent). Small packages get fewer.
PACKAGES = {
    "xmonad": "haskell",
    "lua-luassert": "lua",
    "elixir-lang": "elixir",
    "bash-completion": "bash",
    "libpath-tiny-perl": "perl",
    "ocaml-re": "ocaml",
}
PER_INTENT = {"find_definition": 4, "find_references": 2, "impact_analysis": 1, "exact_match": 2,
              "understand_code": 2, "find_similar": 1}
DEFINITION_KINDS = frozenset({"function", "method", "class", "struct", "interface", "type", "macro", "module",
                              "enum", "trait"})
DEFINITION_TEMPLATES = ("where is {name} defined", "{name}", "definition of {name}", "where is the {kind} {name}")
REFERENCE_TEMPLATES = ("who calls {name}", "usages of {name}")
STRING = re.compile(r"""["']([A-Za-z][A-Za-z ,:'-]{14,48}[a-z.])["']""")
# Doc sentences that start like these are not a question about what the code does.
VAGUE_OPENINGS = frozenset({"this", "the", "a", "an", "both", "if", "see", "note", "todo", "xxx", "fixme", "it",
                            "when", "we", "for", "in", "as", "use", "used", "internal", "deprecated"})
SENTENCE = re.compile(r"^(.{25,160}?[a-z)])[.:](?:\s|$)", re.S)
# Names no package of the set is about, as words; spelled per language (camelCase for Haskell).
FOREIGN_NAMES = (("render", "react", "sidebar"), ("kafka", "consumer", "rebalance"), ("tensorflow", "model", "loader"),
                 ("kubernetes", "pod", "scheduler"), ("stripe", "invoice", "webhook"), ("sqlite", "blob", "cache"))
FOREIGN_TEMPLATES = (("where is {name} defined", "find_definition"), ("who calls {name}", "find_references"),
                     ("what depends on {name}", "impact_analysis"))
# (topic noun that must be absent, question).
FOREIGN_QUESTIONS = (("websocket", "how does the websocket reconnect after a dropped connection"),
                     ("transaction", "how are database transactions rolled back"),
                     ("shader", "how does the shader compile its textures on the GPU"),
                     ("invoice", "how are unpaid invoices reminded by email"),
                     ("kafka", "how does the kafka consumer rebalance partitions"),
                     ("bluetooth", "how are bluetooth devices paired"),
                     ("blockchain", "how are blockchain blocks validated"),
                     ("payroll", "how is the monthly payroll computed for each employee"))


@dataclass
class Package:
    name: str
    language: str
    parsed: dict[str, ParsedFile]
    texts: dict[str, str]


def load(corpus: Path, name: str, language: str) -> Package:
    parsed: dict[str, ParsedFile] = {}
    texts: dict[str, str] = {}
    for path in sorted(p for p in (corpus / name).rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8", errors="replace")
        relative = path.relative_to(corpus).as_posix()
        if detect_language(relative, text) == language:
            parsed[relative] = parse_file(relative, text, language)
            texts[relative] = text
    return Package(name, language, parsed, texts)


def spread(items: list, count: int) -> list:
    """`count` items spread evenly over `items` (deterministic)."""
    if len(items) <= count:
        return items
    step = len(items) / count
    return [items[int(i * step + step / 2)] for i in range(count)]


def gold(path: str, line: int | None) -> dict[str, object]:
    return {"path": path, "line": line}


def row(qid: str, query: str, intent: str, golds: list[dict[str, object]], match: str) -> dict[str, object]:
    return {"id": qid, "query": query, "intent": intent, "gold": golds, "match": match, "answerable": True}


def spelled(words: tuple[str, ...], language: str) -> str:
    if language == "haskell":
        return words[0] + "".join(word.title() for word in words[1:])
    return "_".join(words)


def unanswerable(package: Package, start: int, text: str) -> list[dict[str, object]]:
    """Queries the corpus cannot answer, checked against `text`: all of it, lowercased, `_` removed."""
    shift = start % len(FOREIGN_NAMES)
    names = [words for words in FOREIGN_NAMES[shift:] + FOREIGN_NAMES[:shift] if "".join(words) not in text]
    questions = [q for noun, q in FOREIGN_QUESTIONS if noun not in text]
    out: list[dict[str, object]] = []
    for index, ((template, intent), words) in enumerate(zip(FOREIGN_TEMPLATES, names, strict=False)):
        query = template.format(name=spelled(words, package.language))
        out.append({**row(f"{package.name}-una-{index + 1}", query, intent, [], "any"), "answerable": False})
    for question in questions[start % len(questions):][:1]:
        out.append({**row(f"{package.name}-una-{len(out) + 1}", question, "understand_code", [], "any"),
                    "answerable": False})
    return out


def queries(package: Package) -> list[dict[str, object]]:
    symbols = [s for parsed in package.parsed.values() for s in parsed.symbols]
    by_name: dict[str, list[Symbol]] = defaultdict(list)
    for symbol in symbols:
        by_name[symbol.name].append(symbol)
    calls: dict[str, list[tuple[str, int, str | None]]] = defaultdict(list)
    for path, parsed in package.parsed.items():
        for ref in parsed.references:
            if ref.kind == "call":
                calls[ref.name].append((path, ref.span.start_line + 1, ref.enclosing))
    unique = [s for s in symbols if s.kind in DEFINITION_KINDS and len(by_name[s.name]) == 1
              and len(s.name) >= 5 and not s.name.startswith("_")]
    out: list[dict[str, object]] = []
    prefix = package.name

    for index, symbol in enumerate(spread(unique, PER_INTENT["find_definition"])):
        template = DEFINITION_TEMPLATES[index % len(DEFINITION_TEMPLATES)]
        out.append(row(f"{prefix}-def-{index + 1}", template.format(name=symbol.name, kind=symbol.kind),
                       "find_definition", [gold(symbol.path, symbol.name_span.start_line + 1)], "any"))

    called = [s for s in unique if 2 <= len(calls[s.name]) <= 25]
    picked = spread(called, PER_INTENT["find_references"] + PER_INTENT["impact_analysis"])
    for index, symbol in enumerate(picked[: PER_INTENT["find_references"]]):
        template = REFERENCE_TEMPLATES[index % len(REFERENCE_TEMPLATES)]
        sites = sorted({(path, line) for path, line, _ in calls[symbol.name]})
        out.append(row(f"{prefix}-ref-{index + 1}", template.format(name=symbol.name), "find_references",
                       [gold(path, line) for path, line in sites], "all"))
    for index, symbol in enumerate(picked[PER_INTENT["find_references"]:]):
        sites = {(path, line) for path, line, _ in calls[symbol.name]}
        for path, _, enclosing in calls[symbol.name]:
            caller = next((s for s in package.parsed[path].symbols if s.qualified == enclosing), None)
            if caller is not None:
                sites.add((path, caller.name_span.start_line + 1))
        out.append(row(f"{prefix}-imp-{index + 1}", f"what depends on {symbol.name}", "impact_analysis",
                       [gold(path, line) for path, line in sorted(sites)], "all"))

    literals = []
    for text in package.texts.values():
        for match in STRING.finditer(text):
            literal = match.group(1)
            lines = [(p, n + 1) for p, t in package.texts.items() for n, line in enumerate(t.split("\n"))
                     if literal in line]
            if 1 <= len(lines) <= 3:
                literals.append((literal, lines))
    seen: set[str] = set()
    literals = [item for item in literals if not (item[0] in seen or seen.add(item[0]))]
    for index, (literal, lines) in enumerate(spread(literals, PER_INTENT["exact_match"])):
        out.append(row(f"{prefix}-exa-{index + 1}", f'"{literal}"', "exact_match",
                       [gold(path, line) for path, line in lines], "all"))

    documented = []
    for symbol in unique:
        match = SENTENCE.match(" ".join(symbol.doc.split()))
        first = match.group(1).split()[0].lower() if match else ""
        if match and len(match.group(1).split()) >= 5 and first.isalpha() and first not in VAGUE_OPENINGS:
            documented.append((symbol, match.group(1)))
    for index, (symbol, sentence) in enumerate(spread(documented, PER_INTENT["understand_code"])):
        question = sentence[0].lower() + sentence[1:]
        out.append(row(f"{prefix}-und-{index + 1}", f"how does the code {question}" if not question.startswith(
            ("how", "what", "why")) else question, "understand_code", [gold(symbol.path, None)], "any"))

    shared = sorted({s.name for s in symbols if s.kind in DEFINITION_KINDS and len(s.name) >= 5
                     and len({o.path for o in by_name[s.name]}) >= 3})
    for index, name in enumerate(spread(shared, PER_INTENT["find_similar"])):
        files = sorted({s.path for s in by_name[name]})
        out.append(row(f"{prefix}-sim-{index + 1}", f"code similar to {name} in {Path(files[0]).name}",
                       "find_similar", [gold(path, None) for path in files[1:]], "any"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=HERE / "corpora" / "debian-polyglot")
    parser.add_argument("--out", type=Path, default=HERE / "queries" / "polyglot.jsonl")
    args = parser.parse_args()
    rows = []
    packages = [load(args.corpus, name, language) for name, language in PACKAGES.items()]
    text = "\n".join(t for package in packages for t in package.texts.values()).lower().replace("_", "")
    for start, package in enumerate(packages):
        name, language = package.name, package.language
        made = queries(package) + unanswerable(package, start, text)
        rows.extend(made)
        counts = defaultdict(int)
        for item in made:
            counts[item["intent"]] += 1
        print(f"{name} ({language}): {dict(counts)}")
    kept = [json.loads(line) for line in args.out.read_text().splitlines() if line.strip()] if args.out.exists() else []
    known = {item["id"] for item in kept}
    rows = kept + [item for item in rows if item["id"] not in known]
    args.out.write_text("".join(json.dumps(item) + "\n" for item in rows))
    print(f"{len(rows)} queries ({len(rows) - len(kept)} new) -> {args.out}")


if __name__ == "__main__":
    main()
