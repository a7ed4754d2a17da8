"""An answer's rows as a person reads them: each site of a file shown at a line of code, never at the
licence comment a file's first chunk opens with."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fourfold.engine import SearchRequest, Settings, Workspace

LICENCE = "".join(f"# Copyright line {n} of the licence every file of the project opens with.\n" for n in range(25))
COOKIES = LICENCE + '''
"""Cookies: parsing the header a browser sends and building the one a server sets."""

import re


def parse_cookie(header):
    """Parse a Cookie header into a dict of names and values."""
    cookies = {}
    for part in header.split(";"):
        name, _, value = part.strip().partition("=")
        cookies[name] = unquote_cookie(value)
    return cookies


def unquote_cookie(value):
    """Undo the quoting of a cookie value."""
    if value.startswith('"') and value.endswith('"'):
        value = value[1:-1]
    return re.sub(r"\\\\(.)", r"\\1", value)


def set_cookie(name, value, max_age=None):
    """The Set-Cookie header for one cookie."""
    header = f"{name}={value}"
    if max_age is not None:
        header += f"; Max-Age={max_age}"
    return header
'''
ERLANG = "".join(f"%% Copyright line {n}, the licence.\n" for n in range(20)) + """
-module(cookies).
-export([parse/1]).

%% @doc Parse a cookie header.
parse(Header) ->
    [split(Part) || Part <- binary:split(Header, <<";">>, [global])].

split(Part) ->
    binary:split(Part, <<"=">>).
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "cookies.py").write_text(COOKIES, encoding="utf-8")
    (root / "cookies.erl").write_text(ERLANG, encoding="utf-8")
    opened = Workspace(root, Settings(index_dir=str(tmp_path / "index"), semantic_backend="none"), background=False)
    opened.refresh()
    yield opened
    opened.close()


@pytest.mark.parametrize(("path", "comment"), [("cookies.py", "#"), ("cookies.erl", "%")])
def test_every_site_of_a_file_is_shown_at_code_not_at_its_licence_comment(
    workspace: Workspace, path: str, comment: str
) -> None:
    answer = workspace.search_answer(SearchRequest("how are cookies parsed and split", limit=10)).to_dict()
    row = next(row for row in answer["results"] if row["path"] == path)
    lines = (workspace.root / path).read_text(encoding="utf-8").split("\n")
    sites = [row["selection"]["start"]["line"], *(match["start"]["line"] for match in row["matches"])]
    assert len(sites) > 1  # the file's other chunks are listed, one of them its licence-opened head
    assert all(lines[site].strip() and not lines[site].startswith(comment) for site in sites), sites
    assert [line.strip()[:40] for line in row["match_lines"]] == [
        lines[match["start"]["line"]].strip()[:40] for match in row["matches"]]
