"""Download and unpack the pinned training sources (train/sources.txt) into a corpus folder.

Each source lands in `<corpus>/src/<name>/`; a source already unpacked there is not fetched again,
so a rerun of the whole pipeline costs only the training. Debian sources come from bookworm's
deb-src through a private apt configuration under `<corpus>/apt/`: the machine's own apt setup is
never touched.
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

DEB_SRC_LINE = (
    "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main\n"
)


@dataclass(frozen=True)
class Source:
    """One pinned package: where it comes from, which version, and whether it is held out."""

    kind: str
    name: str
    version: str
    holdout: bool = False


def read_sources(path: Path) -> list[Source]:
    """The sources of a pinned list; `#` starts a comment."""
    sources: list[Source] = []
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].split()
        if not line:
            continue
        kind, name, version, *flags = line
        if kind not in ("pypi", "npm", "deb"):
            raise ValueError(f"{path}: unknown source kind {kind!r} in {raw!r}")
        sources.append(Source(kind, name, version, "holdout" in flags))
    return sources


def _apt_options(corpus: Path) -> list[str]:
    apt = corpus / "apt"
    (apt / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "sources.list").write_text(DEB_SRC_LINE)
    return [
        "-o", f"Dir::Etc::SourceList={apt / 'sources.list'}",
        "-o", "Dir::Etc::SourceParts=/dev/null",
        "-o", f"Dir::State::Lists={apt / 'lists'}",
        "-o", "Debug::NoLocking=1",
    ]  # fmt: skip


def _unpack(archive: Path, target: Path) -> None:
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as handle:
            handle.extractall(target)
        return
    with tarfile.open(archive) as handle:
        handle.extractall(target, filter="data")


def _download(source: Source, work: Path, apt: list[str]) -> list[Path]:
    """The archives of one source, downloaded into `work`."""
    if source.kind == "pypi":
        command = ["pip", "download", "-q", "--no-deps", "--no-binary", source.name, "-d", "."]
        subprocess.run([*command, f"{source.name}=={source.version}"], cwd=work, check=True)
    elif source.kind == "npm":
        subprocess.run(["npm", "pack", "--silent", f"{source.name}@{source.version}"], cwd=work, check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
    else:
        # apt-get fails when the Debian packaging tarball is missing from the mirror even though the
        # upstream one arrived; only the upstream code is wanted, so its presence decides.
        subprocess.run(["apt-get", *apt, "source", "--download-only", "-q", f"{source.name}={source.version}"],
                       cwd=work, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    archives = [p for p in work.iterdir() if p.name.endswith((".tar.gz", ".tgz", ".tar.xz", ".tar.bz2", ".zip"))]
    # A Debian source is the upstream tarball plus the packaging; only upstream code is wanted.
    return [p for p in archives if ".debian." not in p.name]


def fetch(sources: list[Source], corpus: Path) -> dict[str, Path]:
    """Unpacked folder of every source that could be fetched; failures are reported and skipped."""
    apt = _apt_options(corpus)
    if any(source.kind == "deb" for source in sources):
        subprocess.run(["apt-get", *apt, "update", "-qq"], check=True, stdout=subprocess.DEVNULL)
    folders: dict[str, Path] = {}
    for source in sources:
        target = corpus / "src" / source.name
        if (target / ".complete").exists():
            folders[source.name] = target
            continue
        work = corpus / "dl" / source.name
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(target, ignore_errors=True)
        work.mkdir(parents=True)
        try:
            archives = _download(source, work, apt)
            for archive in archives:
                _unpack(archive, target)
        except (subprocess.CalledProcessError, tarfile.TarError, zipfile.BadZipFile, OSError) as error:
            print(f"fetch: skipped {source.kind} {source.name} {source.version}: {error}", flush=True)
            continue
        finally:
            shutil.rmtree(work, ignore_errors=True)
        if archives:
            (target / ".complete").write_text(f"{source.kind} {source.name} {source.version}\n")
            folders[source.name] = target
    return folders
