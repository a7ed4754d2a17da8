"""C/C++ specifier and attribute macros (`FMT_CONSTEXPR void f()`, `FMT_NORETURN FMT_API void report_error(…)`,
`void f() FMT_NOEXCEPT;`, `int n ABSL_GUARDED_BY(mu);`, `template <typename T, FMT_ENABLE_IF(…)>`) and namespaces
opened by a macro (`FMT_BEGIN_NAMESPACE` … `FMT_END_NAMESPACE`). Without a preprocessor the grammar reads the
first as a type and the real type as an error; the namespace was lost. Real grammar, real files on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from fourfold.engine.index.structure import parse_file
from fourfold.engine.model.records import Symbol

BASE_H = """#ifndef FMT_BASE_H_
#define FMT_BASE_H_

#ifndef FMT_BEGIN_NAMESPACE
#  define FMT_BEGIN_NAMESPACE \\
    namespace fmt {           \\
    inline namespace v12 {
#  define FMT_END_NAMESPACE \\
    }                       \\
    }
#endif

FMT_BEGIN_NAMESPACE

// Reports a format error at compile time or, via a `format_error` exception, at runtime.
FMT_NORETURN FMT_API void report_error(const char* message);

struct basic_specs {
 public:
  FMT_CONSTEXPR void set_fill_size(size_t size) { size_ = size; }
  FMT_ALWAYS_INLINE
  FMT_CONSTEXPR basic_specs(const char* s) : data_(s) {}
  static FMT_INLINE auto width() -> int { return 0; }
  void clear() FMT_NOEXCEPT;
  int size_ ABSL_GUARDED_BY(mu_);
};

template <typename T, FMT_ENABLE_IF(!std::is_same<T, char>::value)>
FMT_CONSTEXPR FMT_INLINE auto parse_align(T c) -> align { return c; }

FMT_END_NAMESPACE
#endif  // FMT_BASE_H_
"""

# A header that only uses the macros (fmt's format.h includes base.h for them).
FORMAT_H = """#include "base.h"

FMT_BEGIN_NAMESPACE
/// Formats `args` according to `fmt`.
FMT_API auto vformat(string_view fmt, format_args args) -> std::string;
class FMT_API format_error : public std::runtime_error {};
FMT_END_NAMESPACE
"""

# Types in capitals stay types: nothing is blanked in a file that parses, and `DWORD` before a specifier
# macro is the return type.
WIN_H = """typedef unsigned long DWORD;
HANDLE open_handle(const char* name);
DWORD WINAPI ThreadProc(void* arg) { return 0; }
"""


def _parsed(tmp_path: Path, name: str, text: str, language: str = "cpp") -> dict[str, Symbol]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return {s.qualified: s for s in parse_file(name, path.read_text(encoding="utf-8"), language).symbols}


def test_specifier_macros_leave_the_declarations_whole_in_their_namespace(tmp_path: Path) -> None:
    symbols = _parsed(tmp_path, "base.h", BASE_H)
    assert symbols["fmt.report_error"].kind == "function"
    assert symbols["fmt.report_error"].doc.startswith("Reports a format error")
    assert symbols["fmt.report_error"].name_span.start_line == 15
    for member in ("set_fill_size", "basic_specs", "width", "clear"):
        assert f"fmt.basic_specs.{member}" in symbols, member
    assert "fmt.parse_align" in symbols
    # No macro use became a name (the file's own `#define`s are its macros, rightly).
    assert all(s.kind == "macro" for s in symbols.values() if s.name.isupper())


def test_a_namespace_macro_the_file_only_uses_is_named_by_its_prefix(tmp_path: Path) -> None:
    symbols = _parsed(tmp_path, "format.h", FORMAT_H)
    assert symbols["fmt.vformat"].doc == "Formats `args` according to `fmt`."
    assert symbols["fmt.format_error"].kind == "class"


def test_a_version_namespace_macro_inside_a_namespace_adds_no_level(tmp_path: Path) -> None:
    text = "namespace absl {\nABSL_NAMESPACE_BEGIN\nABSL_MUST_USE_RESULT bool Ok();\nABSL_NAMESPACE_END\n}\n"
    assert "absl.Ok" in _parsed(tmp_path, "status.h", text)


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_capitalised_types_stay_types(tmp_path: Path, language: str) -> None:
    symbols = _parsed(tmp_path, "win.h", WIN_H, language)
    assert symbols["open_handle"].signature.startswith("HANDLE open_handle")
    assert symbols["ThreadProc"].signature.startswith("DWORD")


EASY_C = """struct session {
  int fd;
  char *name;
  int buffer[64];
  unsigned secure : 1;
  void (*on_close)(struct session *);
};

static const char *const level_names[] = {"debug", "info"};
int open_sessions = 0;
extern int verbosity;

void close_session(struct session *s) {
  int local = 0;
  static int calls;
}
"""


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_members_and_file_scope_values_are_definitions(tmp_path: Path, language: str) -> None:
    kinds = {qualified: s.kind for qualified, s in _parsed(tmp_path, "easy.c", EASY_C, language).items()}
    assert {name: kinds.get(name) for name in ("session.fd", "session.name", "session.buffer", "session.secure")} == {
        "session.fd": "field", "session.name": "field", "session.buffer": "field", "session.secure": "field"
    }
    assert (kinds["level_names"], kinds["open_sessions"], kinds["verbosity"]) == ("constant", "variable", "variable")
    assert kinds["close_session"] == "function"
    assert "local" not in kinds and "calls" not in kinds  # a body's locals are no definitions


def test_a_namespace_constant_is_qualified_by_it(tmp_path: Path) -> None:
    text = "namespace absl {\ninline constexpr int kMaxDepth = 8;\nint hits;\nclass Cord { size_t size_; };\n}\n"
    kinds = {qualified: s.kind for qualified, s in _parsed(tmp_path, "cord.h", text).items()}
    assert (kinds["absl.kMaxDepth"], kinds["absl.hits"], kinds["absl.Cord.size_"]) == ("constant", "variable", "field")
