import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { describe, type Environment, findOnPath, isExecutable, resolveServerCommand } from '../src/serverCommand';

// Real executables in a temp folder, checked with the same access test the extension uses.
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fourfold-cmd-'));
const bin = path.join(root, 'bin');
const other = path.join(root, 'other');
fs.mkdirSync(bin);
fs.mkdirSync(other);
for (const [folder, name, mode] of [[bin, 'fourfold', 0o755], [other, 'fourfold-noexec', 0o644], [other, 'python3', 0o755]] as const) {
  fs.writeFileSync(path.join(folder, name), '#!/bin/sh\n', { mode });
}

function env(pathVariable: string, pythonInterpreter?: string[]): Environment {
  return { pathVariable, isExecutable, pythonInterpreter, platform: 'linux' };
}

test('findOnPath walks PATH in order and skips non-executables', () => {
  assert.equal(findOnPath('fourfold', env(`${other}:${bin}`)), path.join(bin, 'fourfold'));
  assert.equal(findOnPath('fourfold-noexec', env(`${other}:${bin}`)), undefined);
});

test('default: fourfold on PATH with serve', () => {
  const resolved = resolveServerCommand([], env(`${other}:${bin}`));
  assert.deepEqual(resolved, { ok: true, server: { command: path.join(bin, 'fourfold'), args: ['serve'], source: 'PATH' } });
});

test('fallback: the Python extension interpreter with -m fourfold.lsp', () => {
  const resolved = resolveServerCommand([], env(other, ['/opt/py/bin/python']));
  assert.deepEqual(resolved, { ok: true, server: { command: '/opt/py/bin/python', args: ['-m', 'fourfold.lsp'], source: 'Python extension' } });
});

test('nothing found: an actionable problem naming the setting', () => {
  const resolved = resolveServerCommand([], env(other));
  assert.equal(resolved.ok, false);
  assert.match(resolved.ok ? '' : resolved.problem, /not on PATH.*fourfold\.server\.command/);
});

test('setting as a path: serve is added; as a list: used as is, bare names looked up on PATH', () => {
  const exe = path.join(bin, 'fourfold');
  assert.deepEqual(resolveServerCommand(exe, env('')), { ok: true, server: { command: exe, args: ['serve'], source: 'setting' } });
  assert.deepEqual(resolveServerCommand(['python3', '-m', 'fourfold.lsp'], env(other)),
    { ok: true, server: { command: path.join(other, 'python3'), args: ['-m', 'fourfold.lsp'], source: 'setting' } });
});

test('a setting pointing nowhere is reported, not silently replaced by the default', () => {
  const resolved = resolveServerCommand(['/nonexistent/fourfold', 'serve'], env(bin));
  assert.equal(resolved.ok, false);
  assert.match(resolved.ok ? '' : resolved.problem, /"\/nonexistent\/fourfold" from fourfold.server.command was not found/);
  assert.equal(resolveServerCommand(path.join(other, 'fourfold-noexec'), env(bin)).ok, false);
});

test('describe quotes words with spaces', () => {
  assert.equal(describe({ command: '/a b/python', args: ['-m', 'fourfold.lsp'], source: 'setting' }), '"/a b/python" -m fourfold.lsp');
});
