"""Discovery: ignore files, skips, symlinks, and reading bad files without losing anything."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fourfold.engine.index.discovery import UnreadableFile, Walker, read_file


def write(root: Path, relative: str, content: str | bytes = "x = 1\n") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def walked(root: Path, **options: object) -> list[str]:
    return [candidate.path for candidate in Walker(root, **options).walk()]  # type: ignore[arg-type]


def test_ignore_files_at_every_level(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.log\nbuild/\n")
    write(tmp_path, ".ignore", "secret.py\n")
    write(tmp_path, "pkg/.fourfoldignore", "generated_*.py\n/local.py\n")
    for name in ("app.py", "debug.log", "build/out.py", "secret.py", "pkg/generated_a.py", "pkg/local.py",
                 "pkg/keep.py", "pkg/sub/local.py"):
        write(tmp_path, name)
    assert sorted(walked(tmp_path)) == [".gitignore", ".ignore", "app.py", "pkg/.fourfoldignore",
                                        "pkg/keep.py", "pkg/sub/local.py"]


def test_a_subfolder_obeys_its_repositorys_ignore_files_but_is_never_emptied_by_them(tmp_path: Path) -> None:
    write(tmp_path, ".git/info/exclude", "*.tmp\n")
    write(tmp_path, ".gitignore", "# made by hand\n\n*.log\nbuild/\nsrc/gen/\n/top.py\n\n")
    write(tmp_path, "src/.ignore", "secret.py\n")
    for name in ("src/app.py", "src/run.log", "src/scratch.tmp", "src/gen/out.py", "src/deep/gen/kept.py",
                 "src/build/out.py", "src/secret.py", "src/top.py", "top.py", "build/tool.py", "build/tool.log"):
        write(tmp_path, name)
    # `src/gen/` names the root's `gen/`, a deeper `gen/` is another folder; `/top.py` is the repository's
    assert sorted(walked(tmp_path / "src")) == [".ignore", "app.py", "deep/gen/kept.py", "top.py"]
    # a root the repository ignores is still the folder the user opened: `build/` does not empty it
    assert walked(tmp_path / "build") == ["tool.py"]
    assert sorted(walked(tmp_path)) == [".gitignore", "src/.ignore", "src/app.py", "src/deep/gen/kept.py",
                                        "src/top.py"]
    assert sorted(walked(tmp_path / "src", parent_ignores=False)) == [
        ".ignore", "app.py", "build/out.py", "deep/gen/kept.py", "gen/out.py", "run.log", "scratch.tmp", "top.py"]


def test_ignore_files_above_a_root_outside_any_repository_are_not_read(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.py\n")
    write(tmp_path, "project/app.py")
    assert walked(tmp_path / "project") == ["app.py"]


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs are POSIX")
def test_an_ignore_file_above_the_root_that_is_a_fifo_is_reported_not_read(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    os.mkfifo(tmp_path / ".gitignore")
    write(tmp_path, "project/app.py")
    walker = Walker(tmp_path / "project")
    assert [candidate.path for candidate in walker.walk()] == ["app.py"]
    assert [(item.path, item.reason) for item in walker.skipped] == [
        ("../.gitignore", "ignore file not obeyed: not a regular file")]


def test_negation_and_user_excludes(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.py\n!keep.py\n")
    write(tmp_path, "keep.py")
    write(tmp_path, "drop.py")
    write(tmp_path, "docs/a.md", "# A\n")
    assert walked(tmp_path) == [".gitignore", "docs/a.md", "keep.py"]
    assert walked(tmp_path, exclude=["docs/"]) == [".gitignore", "keep.py"]


def test_vcs_and_cache_folders_are_skipped(tmp_path: Path) -> None:
    write(tmp_path, ".git/config", "[core]\n")
    write(tmp_path, "node_modules/lib/index.js", "module.exports = 1\n")
    write(tmp_path, "src/main.py")
    assert walked(tmp_path) == ["src/main.py"]


def test_oversized_file_is_skipped_with_a_reason(tmp_path: Path) -> None:
    write(tmp_path, "big.txt", b"a" * (5 * 1024 * 1024))
    write(tmp_path, "small.txt", "ok\n")
    walker = Walker(tmp_path)
    assert [c.path for c in walker.walk()] == ["small.txt"]
    assert walker.skipped[0].path == "big.txt" and "larger than" in walker.skipped[0].reason


def test_symlink_loop_terminates(tmp_path: Path) -> None:
    write(tmp_path, "a/file.py")
    os.symlink(tmp_path / "a", tmp_path / "a" / "loop")
    os.symlink(tmp_path, tmp_path / "a" / "root")
    assert walked(tmp_path) == ["a/file.py"]


def test_only_symlinked_folders_are_resolved_and_a_folder_below_one_is_walked_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder's real path is its parent's plus its name unless it is a symlink: `realpath`, which
    lstats every part of a path, runs for the root and the symlinks only, and a folder reached below a
    symlinked one still counts as the one it really is."""
    for depth in range(4):
        write(tmp_path, "/".join(f"d{level}" for level in range(depth + 1)) + "/f.py")
    os.symlink(tmp_path / "d0" / "d1", tmp_path / "alias")  # walked before d0: its folders are d0/d1's
    resolved: list[str] = []
    realpath = os.path.realpath

    def counted(path: str, **options: bool) -> str:
        resolved.append(str(path))
        return realpath(path, **options)

    monkeypatch.setattr(os.path, "realpath", counted)
    assert walked(tmp_path) == ["alias/d2/d3/f.py", "alias/d2/f.py", "alias/f.py", "d0/f.py"]
    monkeypatch.undo()
    assert str(tmp_path.resolve() / "alias") in resolved  # the symlink is resolved, no other folder is
    assert {realpath(path) for path in resolved} == {str(tmp_path.resolve()), str(tmp_path.resolve() / "d0" / "d1")}


def test_symlink_out_of_root_is_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    root = tmp_path / "root"
    write(outside, "private.py", "token = 'x'\n")
    write(root, "main.py")
    os.symlink(outside, root / "linked_dir")
    os.symlink(outside / "private.py", root / "linked_file.py")
    os.symlink(root / "main.py", root / "alias.py")
    walker = Walker(root)
    assert sorted(c.path for c in walker.walk()) == ["alias.py", "main.py"]
    assert any(s.path == "linked_file.py" for s in walker.skipped)


def test_binary_file_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(UnreadableFile, match="binary"):
        read_file(tmp_path, "image.png")


def test_minified_file_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "app.min.js", "var a=1;" * 2000)
    with pytest.raises(UnreadableFile, match="minified"):
        read_file(tmp_path, "app.min.js")


def test_invalid_utf8_is_replaced_not_fatal(tmp_path: Path) -> None:
    write(tmp_path, "latin1.py", b"name = 'caf\xe9'\n")
    record, text = read_file(tmp_path, "latin1.py")
    assert text == "name = 'caf\ufffd'\n"
    assert record.language == "python" and record.size == 14


def test_crlf_and_empty_files(tmp_path: Path) -> None:
    write(tmp_path, "crlf.py", b"a = 1\r\nb = 2\r\n")
    write(tmp_path, "empty.py", b"")
    assert read_file(tmp_path, "crlf.py")[1].splitlines() == ["a = 1", "b = 2"]
    record, text = read_file(tmp_path, "empty.py")
    assert text == "" and record.size == 0 and len(record.digest) == 16


def test_file_deleted_between_scan_and_read(tmp_path: Path) -> None:
    write(tmp_path, "gone.py")
    candidates = list(Walker(tmp_path).walk())
    (tmp_path / "gone.py").unlink()
    with pytest.raises(UnreadableFile, match="No such file"):
        read_file(tmp_path, candidates[0].path)


def test_digest_changes_with_content(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "x = 1\n")
    first = read_file(tmp_path, "a.py")[0].digest
    write(tmp_path, "a.py", "x = 2\n")
    assert read_file(tmp_path, "a.py")[0].digest != first


def test_permission_denied_is_a_clear_error(tmp_path: Path) -> None:
    write(tmp_path, "open.py")
    locked = write(tmp_path, "locked.py")
    locked.chmod(0)
    write(tmp_path, "closed/inner.py").parent.chmod(0)
    script = (
        "import sys; from pathlib import Path\n"
        "from fourfold.engine.index.discovery import Walker, read_file, UnreadableFile\n"
        "root = Path(sys.argv[1]); w = Walker(root); print(sorted(c.path for c in w.walk()))\n"
        "print([s.path for s in w.skipped])\n"
        "try:\n    read_file(root, 'locked.py')\nexcept UnreadableFile as e:\n    print(e)\n"
    )
    command = [sys.executable, "-c", script, str(tmp_path)]
    if os.geteuid() == 0:  # root reads everything unless the capability is dropped
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout.splitlines()
    (tmp_path / "closed").chmod(0o755)
    assert out[0] == "['locked.py', 'open.py']"
    assert out[1] == "['closed']"
    assert out[2] == "locked.py: Permission denied"


def test_only_symlinked_folders_are_resolved_and_ignore_files_are_found_from_the_listing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder that is no symlink resolves to its parent's resolved path plus its name; `realpath`
    (an lstat per part of the path) ran for every folder, and every folder's ignore files were looked
    up one by one: half of a re-check's walk on Django."""
    root = tmp_path / "root"
    for folder in ("a/b/c", "a/d", "e"):
        write(root, f"{folder}/m.py")
    write(root, "a/.gitignore", "skipped.py\n")
    write(root, "a/b/skipped.py")
    os.symlink(root / "a" / "b", root / "e" / "link")  # the same folder by another way: walked once
    looked_up: list[str] = []
    resolved: list[str] = []
    real_lstat, real_realpath = os.lstat, os.path.realpath

    def counting_lstat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        looked_up.append(str(path))
        return real_lstat(path, *args, **kwargs)  # type: ignore[arg-type]

    def counting_realpath(path: object, *args: object, **kwargs: object) -> str:
        resolved.append(str(path))
        return real_realpath(path, *args, **kwargs)  # type: ignore[arg-type, no-any-return]

    walker = Walker(root)
    monkeypatch.setattr(os, "lstat", counting_lstat)
    monkeypatch.setattr(os.path, "realpath", counting_realpath)
    assert [candidate.path for candidate in walker.walk()] == ["a/.gitignore", "a/b/c/m.py", "a/d/m.py", "e/m.py"]
    assert sorted(Path(path).name for path in resolved) == ["link", "root"]  # the root, and the one symlink
    assert [Path(path).name for path in looked_up if Path(path).name in (".gitignore", ".ignore")] == [".gitignore"]
