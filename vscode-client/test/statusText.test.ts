import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IndexStatus } from '../src/protocol';
import { remember } from '../src/recent';
import { progressPercent, statusView } from '../src/statusText';

const ready: IndexStatus = { ready: true, state: 'ready', files: 2800, symbols: 41250, chunks: 9000, embedded: 0, backend: 'none', progress: 1, last_error: null };

test('status bar: percentage while indexing, counts when ready, error when failed', () => {
  assert.equal(statusView({ kind: 'progress', percent: 41.6, message: 'Indexing: 1,160 files' }).text, '$(sync~spin) Fourfold 42%');
  const view = statusView({ kind: 'status', status: ready });
  assert.equal(view.text, '$(search) Fourfold 2,800 files · 41,250 symbols');
  assert.match(view.tooltip, /semantic search off/);
  const failed = statusView({ kind: 'status', status: { ...ready, ready: false, state: 'error', last_error: 'disk full' } });
  assert.equal(failed.error, true);
  assert.match(failed.tooltip, /disk full/);
  assert.equal(statusView({ kind: 'status', status: { ...ready, ready: false, state: 'indexing', progress: 0.5 } }).text, '$(sync~spin) Fourfold 50%');
  assert.equal(statusView({ kind: 'stopped', problem: 'not found' }).error, true);
});

test('progressPercent clamps and tolerates reports without a percentage', () => {
  assert.equal(progressPercent({ percentage: 140 }), 100);
  assert.equal(progressPercent({}), undefined);
});

test('recent queries: newest first, no repeats, capped, blanks ignored', () => {
  assert.deepEqual(remember(['b', 'a'], ' a '), ['a', 'b']);
  assert.deepEqual(remember(['a'], '   '), ['a']);
  assert.deepEqual(remember(['c', 'b', 'a'], 'd', 3), ['d', 'c', 'b']);
});
