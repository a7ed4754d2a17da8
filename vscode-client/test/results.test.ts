import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SearchResult } from '../src/protocol';
import { badges, emptyState, flags, foldSites, groupByFile, header, impactPath, notFound, siteCount, sites } from '../src/results';
import { answer } from './fixtures';

function result(overrides: Partial<SearchResult>): SearchResult {
  return {
    uri: 'file:///w/a.py', path: 'a.py', folder: 'file:///w', range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } },
    selection: { start: { line: 0, character: 4 }, end: { line: 0, character: 5 } }, symbol: 'f', kind: 'function', container: null, language: 'python', snippet: 'def f():', score: 1,
    contributions: {}, ranks: {}, boost: 1, demoted: false, matches: [], defines: false, prior: 1, coherence: 0,
    match_lines: [], approximate: false, via: [], ...overrides,
  };
}

test('groupByFile keeps server order and gathers hits of the same file', () => {
  const groups = groupByFile([
    result({ uri: 'file:///w/b.py', path: 'b.py', symbol: 'b1' }),
    result({ uri: 'file:///w/a.py', path: 'a.py', symbol: 'a1' }),
    result({ uri: 'file:///w/b.py', path: 'b.py', symbol: 'b2' }),
  ]);
  assert.deepEqual(groups.map((g) => [g.path, g.hits.map((h) => h.symbol)]), [['b.py', ['b1', 'b2']], ['a.py', ['a1']]]);
});

test('groupByFile on a real answer: one group per file, best file first', () => {
  const groups = groupByFile(answer('definition').results);
  assert.equal(groups[0].path, 'web/src/config.js');
  assert.equal(groups.length, new Set(answer('definition').results.map((r) => r.uri)).size);
});

test('badges: one per contributing modality, shares sum to 100%, largest first', () => {
  const found = badges(result({ contributions: { text: 0.001, structural: 0.003, semantic: 0 }, ranks: { text: 4, structural: 0 } }));
  assert.deepEqual(found.map((b) => b.label), ['structural 75%', 'text 25%']);
  assert.match(found[0].title, /ranked #1/);
  assert.match(found[1].title, /ranked #5/);
});

test('badges: a result without contributions has none', () => {
  assert.deepEqual(badges(result({})), []);
});

test('badges on a real fused answer name both modalities that agreed', () => {
  const top = answer('fused').results[0];
  assert.deepEqual(badges(top).map((b) => b.modality).sort(), ['structural', 'text']);
});

test('flags: hub boost above noise and demotion', () => {
  assert.deepEqual(flags(result({ boost: 1.002 })), []);
  assert.deepEqual(flags(result({ boost: 1.26, demoted: true })).map((f) => f.label), ['hub ×1.26', 'demoted']);
});

test('sites leave out the line the result starts on', () => {
  const on = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 3 } });
  const found = sites(result({ range: { start: { line: 3, character: 0 }, end: { line: 9, character: 0 } }, matches: [on(3), on(7)], match_lines: ['a()', 'b()'] }));
  assert.deepEqual(found, [{ range: on(7), code: 'b()' }]);
});

test('header of a direct definition answer', () => {
  const head = header(answer('definition'));
  assert.equal(head.intent, 'find_definition');
  assert.equal(head.confidence, '90%');
  assert.equal(head.strategy, 'direct');
  assert.equal(head.preset, 'default');
  assert.match(head.strategyTitle, /only its best retriever/);
  assert.match(head.time, /ms$/);
  assert.equal(head.counts, '3 results in 3 files');
  assert.deepEqual(head.modalities.map((m) => m.modality), ['structural']);
});

test('header says when the index is partial', () => {
  assert.match(header({ ...answer('definition'), partial: true }).notes.join(' '), /still being built/);
});

test('emptyState explains a building index and a disabled semantic backend', () => {
  const empty = { ...answer('fused'), results: [], index: { ready: false, state: 'indexing', files: 12 } };
  const state = emptyState(empty, 'none');
  assert.match(state.title, /still being built \(12 files/);
  assert.ok(state.hints.some((hint) => /Semantic search is off/.test(hint)));
  assert.ok(!state.hints.some((hint) => /thorough/.test(hint)), 'already thorough');
});

test('emptyState of a plain miss suggests what to try', () => {
  const state = emptyState({ ...answer('definition'), results: [] }, 'local');
  assert.match(state.title, /No results for “where is parseConfig defined”/);
  assert.ok(!state.hints.some((hint) => /Semantic search is off/.test(hint)));
  assert.ok(state.hints.some((hint) => /thorough/.test(hint)));
});

test('sites: every call site of a real answer with its code line, in line order, the own line left out', () => {
  const [busy, calm] = answer('callers').results;
  const found = sites(busy);
  assert.equal(found.length, 11);
  assert.deepEqual(found.map((site) => site.range.start.line + 1), Array.from({ length: 11 }, (_, n) => n + 6));
  assert.deepEqual(found.map((site) => site.code), Array.from({ length: 11 }, (_, n) => `value_${n + 1} = tick(${n + 1})`));
  assert.deepEqual(sites(calm).map((site) => site.code), ['clock.tick(1)', 'clock.tick(2)']);
});

test('sites without match_lines (an older server) still list each line, with no code', () => {
  const on = (line: number) => ({ start: { line, character: 4 }, end: { line, character: 8 } });
  const found = sites(result({ matches: [on(9), on(4), on(9)] }));
  assert.deepEqual(found.map((site) => [site.range.start.line, site.code]), [[4, ''], [9, '']]);
});

test('foldSites: five lines a file are shown, the rest fold; siteCount counts them all', () => {
  const [busy, calm] = groupByFile(answer('callers').results);
  assert.equal(siteCount(busy), 12);
  assert.equal(siteCount(calm), 3);
  const folded = foldSites(busy);
  assert.equal(folded.shown[0].length, 4, 'five lines: the result and four sites');
  assert.equal(folded.folded[0].length, 7);
  assert.deepEqual(foldSites(calm).folded, [[]]);
  const split = foldSites({ ...busy, hits: [busy.hits[0], calm.hits[0]] }, 12);
  assert.deepEqual([split.shown[0].length, split.shown[1].length, split.folded[1].length], [11, 0, 2]);
});

test('notFound: the "no definition of X; similar names" note of a real answer; flags mark its guesses', () => {
  const absent = answer('absent');
  assert.match(notFound(absent) ?? '', /^no definition of parseConfg; similar names: parseConfig/);
  assert.ok(absent.results.length > 0 && absent.results.every((row) => row.approximate));
  assert.ok(absent.results.every((row) => flags(row).some((flag) => flag.kind === 'approximate')));
  const head = header(absent);
  assert.equal(head.notFound, notFound(absent));
  assert.ok(!head.notes.includes(head.notFound ?? ''), 'said once, first');
  assert.equal(notFound(answer('definition')), null);
  assert.equal(header(answer('definition')).notFound, null);
});

test('flags: a caller matched by name only is marked, a resolved one is not', () => {
  assert.deepEqual(flags(result({ resolved: false })).map((f) => f.kind), ['unresolved']);
  assert.deepEqual(flags(result({ resolved: true })), []);
});

test('impactPath shows the chain from the result to the target, and nothing without one', () => {
  assert.equal(impactPath(result({ via: ['InventoryService.__init__', 'load_settings'] })),
    'via InventoryService.__init__ → load_settings');
  assert.equal(impactPath(result({ via: [] })), null);
});
