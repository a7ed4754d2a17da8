"""C/C++ macro lines (`ABSL_NAMESPACE_BEGIN`, `NLOHMANN_JSON_NAMESPACE_BEGIN`): without a preprocessor the
grammar reads one as the type of a declaration that swallows the next definition, so abseil's `absl::Hash`
and nlohmann's `adl_serializer` were no symbols; an attribute macro in a class head (`class
ABSL_ATTRIBUTE_OWNER btree_map`) was read as the class's name. Blanked, they parse; a macro read right stays."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fourfold.engine import SearchRequest, Settings, Workspace
from fourfold.engine.index.structure import parse_file

HASH_H = """#ifndef ABSL_HASH_HASH_H_
#define ABSL_HASH_HASH_H_

namespace absl {
ABSL_NAMESPACE_BEGIN

// `absl::Hash` is the hash functor of the Abseil hashing framework.
template <typename T>
using Hash = absl::hash_internal::Hash<T>;

ABSL_NAMESPACE_END
}  // namespace absl

#endif  // ABSL_HASH_HASH_H_
"""

ADL_SERIALIZER_HPP = """#pragma once
#include <utility>

NLOHMANN_JSON_NAMESPACE_BEGIN

/// @brief default JSONSerializer template argument
template<typename ValueType, typename>
struct adl_serializer
{
    template<typename BasicJsonType, typename TargetType = ValueType>
    static auto from_json(BasicJsonType && j, TargetType& val) -> void
    {
        ::nlohmann::from_json(std::forward<BasicJsonType>(j), val);
    }
};

NLOHMANN_JSON_NAMESPACE_END
"""

LEVELS_H = """enum level { LEVEL_LOW,
  LEVEL_MAX
};
int clamp(int x, int y, int z);
int top(void) { return clamp(0,
  LEVEL_MAX
  , 1); }
BOOL
is_top(int x) { return x == LEVEL_MAX; }
"""

FILES = {"absl/hash/hash.h": HASH_H, "include/nlohmann/adl_serializer.hpp": ADL_SERIALIZER_HPP}


def test_a_definition_after_a_macro_line_is_a_symbol_with_its_container_and_doc() -> None:
    symbols = {s.qualified: s for s in parse_file("absl/hash/hash.h", HASH_H, "cpp").symbols}
    assert symbols["absl.Hash"].kind == "type"
    assert symbols["absl.Hash"].name_span.start_line == 8
    assert symbols["absl.Hash"].doc.startswith("`absl::Hash` is the hash functor")
    adl = {s.qualified: s for s in parse_file("adl_serializer.hpp", ADL_SERIALIZER_HPP, "cpp").symbols}
    # The macro opens nlohmann's namespace (named by its prefix: the file does not `#define` it).
    assert adl["nlohmann.adl_serializer"].kind == "struct"
    assert adl["nlohmann.adl_serializer.from_json"].kind == "method"


def test_a_macro_the_grammar_reads_right_is_kept() -> None:
    symbols = {s.qualified: s.kind for s in parse_file("levels.h", LEVELS_H, "c").symbols}
    assert symbols["level.LEVEL_MAX"] == "enum_member"
    assert symbols["top"] == "function"
    assert symbols["is_top"] == "function"


BTREE_MAP_H = """namespace absl {
template <typename Key, typename Value>
class ABSL_ATTRIBUTE_OWNER btree_map
    : public container_internal::btree_map_container<Key, Value> {
 public:
  void clear();
};
class FMT_SO_VISIBILITY("default") format_error : public std::runtime_error {};
class DLL_EXPORT Codec final {};
struct STAT_T st;
}
"""


def test_an_attribute_macro_in_a_class_head_is_not_the_class_name() -> None:
    symbols = {s.qualified: s.kind for s in parse_file("btree_map.h", BTREE_MAP_H, "cpp").symbols}
    assert symbols["absl.btree_map"] == "class"
    assert symbols["absl.btree_map.clear"] == "method"
    assert symbols["absl.format_error"] == "class"
    assert symbols["absl.Codec"] == "class"
    assert not any(name.split(".")[-1].isupper() for name in symbols)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    root = tmp_path_factory.mktemp("cpp") / "repo"
    for relative, text in FILES.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    opened = Workspace(Path(root), Settings(index_dir=str(tmp_path_factory.mktemp("index")), semantic_backend="none"))
    opened.refresh()
    yield opened
    opened.close()


@pytest.mark.parametrize(
    ("query", "path", "line"),
    [("absl::Hash", "absl/hash/hash.h", 7), ("adl_serializer", "include/nlohmann/adl_serializer.hpp", 6)],
)
def test_the_structural_retriever_finds_the_public_name(workspace: Workspace, query: str, path: str, line: int) -> None:
    answer = workspace.search_dict(SearchRequest(query=query, limit=5, modes=("structural",)))
    row = answer["results"][0]
    assert (row["path"], row["range"]["start"]["line"]) == (path, line)
