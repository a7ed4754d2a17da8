import assert from 'node:assert/strict';
import { test } from 'node:test';
import { affectsServer, serverSettings } from '../src/settings';

const values: Record<string, unknown> = {
  preset: 'thorough',
  'semantic.backend': 'voyage',
  exclude: ['**/fixtures/**'],
  maxFileSize: 2048,
  indexDir: '',
  demoteFactor: 0.25,
  textCacheMb: 64,
  parentIgnoreFiles: false,
  'server.command': ['/x/fourfold', 'serve'],
  'trace.server': 'verbose',
  'results.limit': 20,
};
const get = (name: string): unknown => values[name];

test('only server settings are sent, renamed, empty indexDir left out', () => {
  const { settings } = serverSettings((name) => (name === 'semantic.backend' ? 'local' : get(name)), { trusted: true, apiKey: 'k' });
  assert.deepEqual(settings, { preset: 'thorough', semanticBackend: 'local', exclude: ['**/fixtures/**'], maxFileSize: 2048, demoteFactor: 0.25, textCacheMb: 64, parentIgnoreFiles: false });
});

test('a trusted workspace with the voyage backend gets the key from secret storage', () => {
  const { settings, notes } = serverSettings(get, { trusted: true, apiKey: 'secret' });
  assert.equal(settings.semanticBackend, 'voyage');
  assert.equal(settings.voyageApiKey, 'secret');
  assert.deepEqual(notes, []);
});

test('voyage without a key says how to set one', () => {
  const { settings, notes } = serverSettings(get, { trusted: true, apiKey: undefined });
  assert.equal(settings.voyageApiKey, undefined);
  assert.match(notes[0], /Set Voyage API Key/);
});

test('an untrusted workspace never gets the remote backend nor the key, and is told so', () => {
  const { settings, notes } = serverSettings(get, { trusted: false, apiKey: 'secret' });
  assert.equal(settings.semanticBackend, 'local');
  assert.equal(settings.voyageApiKey, undefined);
  assert.match(notes[0], /not trusted/);
});

test('the key is not sent when the backend is not voyage', () => {
  const { settings } = serverSettings((name) => (name === 'semantic.backend' ? 'none' : get(name)), { trusted: true, apiKey: 'secret' });
  assert.equal(settings.voyageApiKey, undefined);
});

test('affectsServer: server settings yes, client-only settings no', () => {
  assert.equal(affectsServer((section) => section === 'fourfold.preset'), true);
  assert.equal(affectsServer((section) => section === 'fourfold.semantic.backend'), true);
  assert.equal(affectsServer((section) => section === 'fourfold.trace.server'), false);
});
