import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SearchResult } from '../src/protocol';
import { badges, emptyState, flags, groupByFile, header, otherMatches } from '../src/results';
import { answer } from './fixtures';

function result(overrides: Partial<SearchResult>): SearchResult {
  return {
    uri: 'file:///w/a.py', path: 'a.py', range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } },
    symbol: 'f', kind: 'function', container: null, language: 'python', snippet: 'def f():', score: 1,
    contributions: {}, ranks: {}, boost: 1, demoted: false, matches: [], ...overrides,
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

test('otherMatches leaves out the line the result starts on', () => {
  const on = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 3 } });
  assert.deepEqual(otherMatches(result({ range: { start: { line: 3, character: 0 }, end: { line: 9, character: 0 } }, matches: [on(3), on(7)] })), [on(7)]);
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
