"""Build the held-out semble set: bench/queries/semble-rest.jsonl and semble-rest-repos.json.

The queries and their file labels are MinishLab's semble benchmark (github.com/MinishLab/semble,
`benchmarks/annotations/<repo>.json` and `benchmarks/repos.json`, MIT licence, (c) MinishLab); nobody
on this project wrote them. This script only converts 14 of its repositories that semble.jsonl and
semble-more lack into the row format those sets use, against the releases that
bench/fetch_semble_rest.sh lays out (the labels were made on 2026 upstream commits):

- a labelled path that the release lacks is dropped from its query's gold, and a query left with no
  relevant path is dropped (counted per repository in the repos file);
- line-range labels become file labels, since the lines of a different release are not the labelled
  lines (counted too).

usage: python bench/make_semble_rest.py --root DEST [--annotations DIR]
(DIR holds semble's annotation files as published; default bench/out/semble-annotations, not committed)
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Repo:
    """One semble repository as its repos.json names it (benchmark_root "" = the whole repository)."""

    name: str
    language: str
    upstream: str
    labelled_commit: str
    benchmark_root: str


REPOS = (
    Repo("gin", "go", "gin-gonic/gin", "d3ffc9985281dcf4d3bef604cce4e662b1a327a6", ""),
    Repo("cobra", "go", "spf13/cobra", "61968e893eee2f27696c2fbc8e34fa5c4afaf7c4", ""),
    Repo("chi", "go", "go-chi/chi", "a54874f0e2f12647a19e82ee70dfa8185014100c", ""),
    Repo("gson", "java", "google/gson", "f4d371d29c04066dbe7fdb31f642831f9c7f40cd", "gson"),
    Repo("jackson-databind", "java", "FasterXML/jackson-databind", "e30139539416f69f1d7ae31c7e1d6da5b25bf362",
         "src/main/java/tools/jackson/databind"),
    Repo("sinatra", "ruby", "sinatra/sinatra", "f891dd2b6f4911e356600efe6c3b82af97d262c6", "lib"),
    Repo("rack", "ruby", "rack/rack", "ca8a404704ed043797c4f9d482c97d722c0dc719", "lib/rack"),
    Repo("serde", "rust", "serde-rs/serde", "fa7da4a93567ed347ad0735c28e439fca688ef26", ""),
    Repo("axum", "rust", "tokio-rs/axum", "309d1bd9530eec2217134cb262760af1df42ee3b", "axum/src"),
    Repo("nlohmann-json", "cpp", "nlohmann/json", "3946872265598aed5a7aea68cad4d9d1f168bd4b", "include/nlohmann"),
    Repo("abseil-cpp", "cpp", "abseil/abseil-cpp", "b9536c952c6f6bbcb37a5edb4fa88ee62d27cd7e", "absl"),
    Repo("libuv", "c", "libuv/libuv", "40178b916e5937ed43c557aa051bdb3f86f6ca93", "src"),
    Repo("kotlinx-coroutines", "kotlin", "Kotlin/kotlinx.coroutines", "643c1aa554139a82f60724a59e79b801f303fdfe",
         "kotlinx-coroutines-core/common/src"),
    Repo("trpc", "typescript", "trpc/trpc", "c188dab0822caf3615199e4ac95147bc7560d26f", "packages/server/src"),
)


@dataclass
class Tally:
    """What converting one repository kept and dropped, for the repos file and the notes."""

    queries: int = 0
    kept: int = 0
    relevant: int = 0
    relevant_found: int = 0
    secondary: int = 0
    secondary_found: int = 0
    lines_relaxed: int = 0


def _target(item: str | dict[str, Any]) -> tuple[str, bool]:
    """A label's path, and whether it carried a line range."""
    if isinstance(item, str):
        return item, False
    return str(item["path"]), item.get("start_line") is not None


def convert(repo: Repo, annotations: list[dict[str, Any]], root: Path, tally: Tally) -> list[dict[str, Any]]:
    """The repository's rows, numbered in the annotation file's order (dropped queries keep no number)."""
    rows = []
    for entry in annotations:
        tally.queries += 1
        gold: list[dict[str, Any]] = []
        seen: set[str] = set()
        for kind in ("relevant", "secondary"):
            for item in entry.get(kind, []):
                path, had_lines = _target(item)
                found = (root / repo.name / path).is_file()
                setattr(tally, kind, getattr(tally, kind) + 1)
                if found:
                    setattr(tally, f"{kind}_found", getattr(tally, f"{kind}_found") + 1)
                tally.lines_relaxed += had_lines
                if found and path not in seen:
                    seen.add(path)
                    gold.append({"path": path, "start_line": None, "end_line": None, "kind": kind})
        if not any(g["kind"] == "relevant" for g in gold):
            continue
        rows.append({
            "id": f"{repo.name}-{tally.kept:03d}", "repo": repo.name, "language": repo.language,
            "query": entry["query"], "category": entry["category"], "category_source": "label", "gold": gold,
        })
        tally.kept += 1
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="where fetch_semble_rest.sh laid the corpora")
    parser.add_argument("--annotations", type=Path, default=HERE / "out" / "semble-annotations")
    parser.add_argument("--out", type=Path, default=HERE / "queries")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    entries = []
    for repo in REPOS:
        marker = args.root / f".{repo.name}.complete"
        if not marker.is_file():
            print(f"skip {repo.name}: not fetched under {args.root}")
            continue
        tally = Tally()
        annotations = json.loads((args.annotations / f"{repo.name}.json").read_text(encoding="utf-8"))
        rows.extend(convert(repo, annotations, args.root, tally))
        entries.append({
            "name": repo.name, "language": repo.language, "upstream": repo.upstream,
            "labelled_commit": repo.labelled_commit, "benchmark_root": repo.benchmark_root,
            "how_to_get": marker.read_text(encoding="utf-8").strip() + " via bench/fetch_semble_rest.sh",
            "queries_published": tally.queries, "queries_kept": tally.kept,
            "relevant_paths_found": f"{tally.relevant_found}/{tally.relevant}",
            "secondary_paths_found": f"{tally.secondary_found}/{tally.secondary}",
            "line_labels_relaxed_to_file": tally.lines_relaxed,
        })
        print(f"{repo.name:20} kept {tally.kept}/{tally.queries} queries, relevant {tally.relevant_found}/"
              f"{tally.relevant}, secondary {tally.secondary_found}/{tally.secondary}, "
              f"line labels relaxed {tally.lines_relaxed}")
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "semble-rest.jsonl").open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    (args.out / "semble-rest-repos.json").write_text(
        json.dumps({"source": "MinishLab/semble benchmarks (MIT); see bench/make_semble_rest.py",
                    "repos": entries}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(rows)} queries over {len(entries)} repositories -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
