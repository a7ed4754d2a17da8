"""Import resolution over small workspace layouts, one table per language."""

from __future__ import annotations

from pathlib import Path

import pytest

from fourfold.engine.graph.graph import CodeGraph, file_node
from fourfold.engine.graph.imports import FileSet, path_keys, resolve_import, spec_keys
from fourfold.engine.index.structure import parse_file

PYTHON = FileSet.of(
    [
        "pkg/__init__.py",
        "pkg/config.py",
        "pkg/sub/__init__.py",
        "pkg/sub/models.py",
        "pkg/sub/deep/leaf.py",
        "src/lib/__init__.py",
        "src/lib/core.py",
        "tests/admin/__init__.py",
        "tests/admin/models.py",
        "tests/admin/test_views.py",
        "scripts/run.py",
        "scripts/helper.py",
        "typed/stubs.pyi",
    ]
)


@pytest.mark.parametrize(
    ("spec", "from_path", "expected"),
    [
        ("pkg.config", "main.py", ["pkg/config.py"]),
        ("pkg.config.Config", "main.py", ["pkg/config.py"]),  # `from pkg.config import Config`
        ("pkg.sub", "main.py", ["pkg/sub/__init__.py"]),
        ("pkg.sub.models.User", "main.py", ["pkg/sub/models.py"]),
        ("lib.core", "main.py", ["src/lib/core.py"]),  # src/ layout
        ("admin.models", "tests/admin/test_views.py", ["tests/admin/models.py"]),  # tests/ as a root
        ("helper", "scripts/run.py", ["scripts/helper.py"]),  # a script's neighbour
        ("typed.stubs", "main.py", ["typed/stubs.pyi"]),
        (".models.User", "pkg/sub/__init__.py", ["pkg/sub/models.py"]),
        (".deep.leaf.f", "pkg/sub/models.py", ["pkg/sub/deep/leaf.py"]),
        ("..config.Config", "pkg/sub/models.py", ["pkg/config.py"]),
        ("..x", "pkg/sub/models.py", ["pkg/__init__.py"]),  # `from .. import x`: x from the package
        (".", "pkg/sub/models.py", ["pkg/sub/__init__.py"]),
        ("os.path", "pkg/config.py", []),
        ("requests", "pkg/config.py", []),
    ],
)
def test_python(spec: str, from_path: str, expected: list[str]) -> None:
    assert resolve_import(spec, from_path, "python", PYTHON) == expected


JS = FileSet.of(
    [
        "src/app.ts",
        "src/util.ts",
        "src/components/index.tsx",
        "src/components/Button.jsx",
        "src/legacy.js",
        "src/esm/helper.ts",
        "packages/shared/package.json",
        "packages/shared/src/index.ts",
        "packages/shared/src/strings.ts",
        "node_modules/react/index.js",
        "node_modules/react/package.json",
    ]
)


@pytest.mark.parametrize(
    ("spec", "from_path", "expected"),
    [
        ("./util", "src/app.ts", ["src/util.ts"]),
        ("./components", "src/app.ts", ["src/components/index.tsx"]),
        ("./components/Button", "src/app.ts", ["src/components/Button.jsx"]),
        ("../legacy", "src/esm/helper.ts", ["src/legacy.js"]),
        ("./helper.js", "src/esm/other.ts", ["src/esm/helper.ts"]),  # TS ESM names the emitted file
        ("shared", "src/app.ts", ["packages/shared/src/index.ts"]),  # monorepo member
        ("shared/strings", "src/app.ts", ["packages/shared/src/strings.ts"]),
        ("react", "src/app.ts", []),  # installed dependencies are external
        ("./missing", "src/app.ts", []),
    ],
)
def test_javascript_and_typescript(spec: str, from_path: str, expected: list[str]) -> None:
    assert resolve_import(spec, from_path, "typescript", JS) == expected


GO = FileSet.of(
    [
        "go.mod",
        "main.go",
        "internal/store/store.go",
        "internal/store/cache.go",
        "internal/store/store_test.go",
        "pkg/store/other.go",
        "pkg/api/api.go",
    ]
)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("example.com/app/internal/store", ["internal/store/cache.go", "internal/store/store.go"]),
        ("example.com/app/pkg/api", ["pkg/api/api.go"]),
        ("fmt", []),
        ("github.com/other/lib", []),
    ],
)
def test_go_package_is_its_folder_without_tests(spec: str, expected: list[str]) -> None:
    assert resolve_import(spec, "main.go", "go", GO) == expected


RUST = FileSet.of(
    [
        "Cargo.toml",
        "src/lib.rs",
        "src/config.rs",
        "src/net/mod.rs",
        "src/net/client.rs",
        "src/net/client/retry.rs",
        "crates/util-core/src/lib.rs",
        "crates/util-core/src/text.rs",
    ]
)


@pytest.mark.parametrize(
    ("spec", "from_path", "expected"),
    [
        ("mod:config", "src/lib.rs", ["src/config.rs"]),
        ("mod:net", "src/lib.rs", ["src/net/mod.rs"]),
        ("mod:client", "src/net/mod.rs", ["src/net/client.rs"]),
        ("mod:retry", "src/net/client.rs", ["src/net/client/retry.rs"]),
        ("crate::config::Config", "src/net/client.rs", ["src/config.rs"]),
        ("crate::net::client::Client", "src/config.rs", ["src/net/client.rs"]),
        ("crate::Thing", "src/config.rs", ["src/lib.rs"]),
        ("super::Client", "src/net/client/retry.rs", ["src/net/client.rs"]),
        ("super::super::super::config::load", "src/net/client/retry.rs", ["src/config.rs"]),
        ("super::super::Net", "src/net/client/retry.rs", ["src/net/mod.rs"]),
        ("self::retry::backoff", "src/net/client.rs", ["src/net/client/retry.rs"]),
        ("super::Net", "src/net/client.rs", ["src/net/mod.rs"]),
        ("config::Config", "src/lib.rs", ["src/config.rs"]),  # 2018 uniform paths
        ("util_core::text::trim", "src/lib.rs", ["crates/util-core/src/text.rs"]),  # workspace crate
        ("std::collections::HashMap", "src/lib.rs", []),
    ],
)
def test_rust(spec: str, from_path: str, expected: list[str]) -> None:
    assert resolve_import(spec, from_path, "rust", RUST) == expected


JAVA = FileSet.of(
    [
        "src/main/java/com/acme/app/Main.java",
        "src/main/java/com/acme/util/Strings.java",
        "src/main/java/com/acme/util/Lists.java",
    ]
)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("com.acme.util.Strings", ["src/main/java/com/acme/util/Strings.java"]),
        ("com.acme.util.Strings.trim", ["src/main/java/com/acme/util/Strings.java"]),  # static import
        (
            "com.acme.util.*",
            ["src/main/java/com/acme/util/Lists.java", "src/main/java/com/acme/util/Strings.java"],
        ),
        ("java.util.List", []),
    ],
)
def test_java(spec: str, expected: list[str]) -> None:
    assert resolve_import(spec, "src/main/java/com/acme/app/Main.java", "java", JAVA) == expected


# A workspace opened inside its package tree (`org/apache/commons/lang3` as the root): the package
# names above the root are not folders of the workspace.
JAVA_INSIDE = FileSet.of(
    ["StringUtils.java", "builder/EqualsBuilder.java", "builder/Builder.java", "text/util/List.java", "Objects.java"]
)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("org.apache.commons.lang3.StringUtils", ["StringUtils.java"]),
        ("org.apache.commons.lang3.builder.EqualsBuilder", ["builder/EqualsBuilder.java"]),
        ("static org.apache.commons.lang3.StringUtils.isEmpty", ["StringUtils.java"]),
        ("org.apache.commons.lang3.builder.*", ["builder/Builder.java", "builder/EqualsBuilder.java"]),
        ("java.util.List", []),  # anchored at the root: not text/util/List.java
        ("java.util.Objects", []),  # java.* is the platform's, never the workspace's
        ("com.google.common.base.Strings", []),
    ],
)
def test_java_in_a_workspace_opened_inside_its_package_tree(spec: str, expected: list[str]) -> None:
    assert resolve_import(spec, "builder/ToStringBuilder.java", "java", JAVA_INSIDE) == expected


def test_java_imports_link_files_of_a_workspace_opened_inside_its_package_tree(tmp_path: Path) -> None:
    """Real files through the real parser and graph: before this, such a workspace had no import edge."""
    sources = {
        "ClassUtils.java": "package org.acme.lang;\n\npublic class ClassUtils {\n"
                           "  public static String shortName(Class<?> c) { return c.getSimpleName(); }\n}\n",
        "builder/EqualsBuilder.java": "package org.acme.lang.builder;\n\nimport java.util.List;\n"
                                      "import org.acme.lang.ClassUtils;\n\npublic class EqualsBuilder {\n"
                                      "  String name(Object o) { return ClassUtils.shortName(o.getClass()); }\n}\n",
    }
    parsed = {}
    for path, text in sources.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
        parsed[path] = parse_file(path, text, "java")
    graph = CodeGraph(parsed)
    imports = {(a, b) for a, b, kind in graph.graph.edges(data="kind") if kind == "imports"}
    assert imports == {(file_node("builder/EqualsBuilder.java"), file_node("ClassUtils.java"))}


C = FileSet.of(["src/main.c", "src/util.h", "include/lib/api.h", "other/util.h", "src/net/sock.h"])


@pytest.mark.parametrize(
    ("spec", "from_path", "expected"),
    [
        ("util.h", "src/main.c", ["src/util.h"]),  # next to the includer wins over the other util.h
        ("net/sock.h", "src/main.c", ["src/net/sock.h"]),
        ("../src/util.h", "other/x.c", ["src/util.h"]),
        ("<lib/api.h>", "src/main.c", ["include/lib/api.h"]),
        ("api.h", "src/main.c", ["include/lib/api.h"]),  # include path: any file with that suffix
        ("<stdio.h>", "src/main.c", []),
    ],
)
def test_c_includes(spec: str, from_path: str, expected: list[str]) -> None:
    assert resolve_import(spec, from_path, "c", C) == expected


def test_other_languages() -> None:
    ruby = FileSet.of(["lib/acme/client.rb", "app/models/user.rb", "app/models/post.rb"])
    assert resolve_import("./post", "app/models/user.rb", "ruby", ruby) == ["app/models/post.rb"]
    assert resolve_import("acme/client", "app/models/user.rb", "ruby", ruby) == ["lib/acme/client.rb"]
    php = FileSet.of(["src/Models/User.php", "src/Http/Kernel.php"])
    assert resolve_import("App\\Models\\User", "src/Http/Kernel.php", "php", php) == ["src/Models/User.php"]
    csharp = FileSet.of(["Acme/Data/Repo.cs", "Acme/Data/Db.cs", "Acme/App/Program.cs"])
    assert resolve_import("Acme.Data", "Acme/App/Program.cs", "csharp", csharp) == [
        "Acme/Data/Db.cs",
        "Acme/Data/Repo.cs",
    ]
    assert resolve_import("anything", "x.md", "markdown", ruby) == []


def test_a_file_never_imports_itself() -> None:
    files = FileSet.of(["a/__init__.py"])
    assert resolve_import(".", "a/__init__.py", "python", files) == []


def test_fileset_updates_and_keys() -> None:
    files = FileSet.of(["pkg/a.py"])
    assert resolve_import("pkg.b", "main.py", "python", files) == []
    files.add("pkg/b.py")
    assert resolve_import("pkg.b", "main.py", "python", files) == ["pkg/b.py"]
    files.remove("pkg/b.py")
    assert resolve_import("pkg.b", "main.py", "python", files) == []
    assert files.by_dir == {"pkg": {"pkg/a.py"}}
    files.remove("pkg/a.py")
    assert files.dirs_by_name == {} and files.by_name == {}
    # A new file is found again through the keys of the specifiers that could name it.
    assert path_keys("pkg/b.py") & spec_keys("pkg.b.thing")
    assert path_keys("src/components/index.tsx") & spec_keys("./components")
    assert not path_keys("lib/c.py") & spec_keys("pkg.b")


def test_suffix_answers_are_remembered_until_the_file_set_changes() -> None:
    files = FileSet.of(["a/util.py", "b/util.py"])
    assert files.with_suffix("util.py") == ["a/util.py", "b/util.py"]
    files.add("c/util.py")
    assert files.with_suffix("util.py") == ["a/util.py", "b/util.py", "c/util.py"]
    files.remove("a/util.py")
    assert files.with_suffix("util.py") == ["b/util.py", "c/util.py"]
    files.with_suffix("util.py").clear()  # a caller's list is its own
    assert files.with_suffix("util.py") == ["b/util.py", "c/util.py"]


def test_ruby_in_a_workspace_opened_inside_its_load_path() -> None:
    """`railties/lib/rails` opened as the root: `require "rails/command/base"` is `command/base.rb`
    from the root itself, never a `base.rb` in some other folder."""
    ruby = FileSet.of(["command.rb", "command/base.rb", "generators/base.rb", "generators/app/base.rb"])
    assert resolve_import("rails/command/base", "commands.rb", "ruby", ruby) == ["command/base.rb"]
    assert resolve_import("rails/command", "commands.rb", "ruby", ruby) == ["command.rb"]
    assert resolve_import("active_support/core_ext/object/blank", "command.rb", "ruby", ruby) == []
    assert resolve_import("rails/base", "command.rb", "ruby", ruby) == []
