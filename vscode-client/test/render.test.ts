import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml, makeNonce, renderPage } from '../src/render';
import { answer } from './fixtures';

const assets = { nonce: 'N0nce', cspSource: 'vscode-webview://x', scriptUri: 'vscode-webview://x/panel.js', styleUri: 'vscode-webview://x/panel.css' };

test('strict CSP: no default sources, scripts only with the nonce', () => {
  const html = renderPage({ kind: 'welcome' }, assets);
  assert.match(html, /content="default-src 'none'; style-src vscode-webview:\/\/x; script-src 'nonce-N0nce'"/);
  assert.match(html, /<script nonce="N0nce" src="vscode-webview:\/\/x\/panel.js">/);
  assert.doesNotMatch(html, /unsafe-inline|unsafe-eval/);
});

test('an answer shows the header, the file, the line and the click target', () => {
  const html = renderPage({ kind: 'answer', answer: answer('definition'), backend: 'none' }, assets);
  assert.match(html, /find_definition · 90%/);
  assert.match(html, /class="strategy"[^>]*>direct</);
  assert.match(html, /class="path">web\/src\/config.js</);
  assert.match(html, /data-uri="file:\/\/\/[^"]*web\/src\/config.js" data-range="3,0,10,1"/);
  assert.match(html, /class="line">Ln 4</);
  assert.match(html, /structural 100%/);
});

test('text from the server is escaped', () => {
  const evil = answer('definition');
  evil.query = '<img src=x onerror=alert(1)>';
  evil.results[0].snippet = '</code><script>alert(1)</script>';
  const html = renderPage({ kind: 'answer', answer: evil, backend: null }, assets);
  assert.doesNotMatch(html, /<img|<script>alert/);
  assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
});

test('empty answer renders the empty state, a failure says what failed', () => {
  const empty = renderPage({ kind: 'answer', answer: { ...answer('definition'), results: [] }, backend: 'none' }, assets);
  assert.match(empty, /id="empty"/);
  assert.match(empty, /No results for/);
  const failed = renderPage({ kind: 'failed', query: 'q', message: 'the server is not running: boom' }, assets);
  assert.match(failed, /failed: the server is not running: boom/);
});

test('every call site shows its code line: five a file, the rest under an expandable +N more', () => {
  const html = renderPage({ kind: 'answer', answer: answer('callers'), backend: 'none' }, assets);
  const busy = html.slice(html.indexOf('class="path">busy.py<'), html.indexOf('class="path">calm.py<'));
  assert.match(busy, /class="count" title="12 sites in this file">12</);
  const [shown, folded] = busy.split('<details class="more">');
  assert.equal((shown.match(/class="hit site"/g) ?? []).length, 4, 'the result line and four sites');
  assert.match(shown, /data-range="5,14,5,18"[^>]*><span class="line">Ln 6<\/span><code class="snippet">value_1 = tick\(1\)<\/code>/);
  assert.match(folded, /^<summary tabindex="-1">\+7 more in this file<\/summary>/);
  assert.equal((folded.match(/class="hit site"/g) ?? []).length, 7);
  assert.match(folded, /Ln 16<\/span><code class="snippet">value_11 = tick\(11\)</);
  const calm = html.slice(html.indexOf('class="path">calm.py<'));
  assert.doesNotMatch(calm, /<details/);
  assert.match(calm, /clock\.tick\(2\)/);
});

test('a missing target is said first in the header and its guesses are flagged', () => {
  const html = renderPage({ kind: 'answer', answer: answer('absent'), backend: 'none' }, assets);
  assert.match(html, /<header id="summary"><p class="not-found" role="status">no definition of parseConfg; similar names: parseConfig/);
  assert.match(html, /class="badge flag-approximate"/);
  const exact = renderPage({ kind: 'answer', answer: answer('definition'), backend: 'none' }, assets);
  assert.doesNotMatch(exact, /not-found|flag-approximate/);
});

test('hub boost is flagged on a real fused answer', () => {
  const html = renderPage({ kind: 'answer', answer: answer('fused'), backend: 'none' }, assets);
  assert.match(html, /hub ×1\.\d\d/);
});

test('escapeHtml and nonce', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  const nonce = makeNonce();
  assert.match(nonce, /^[A-Za-z0-9]{32}$/);
  assert.notEqual(nonce, makeNonce());
});

test('an impact result shows the path it depends on the target by', () => {
  const base = answer('definition');
  const impact = { ...base, results: [{ ...base.results[0], via: ['InventoryService.__init__', '<load_settings>'] }] };
  const html = renderPage({ kind: 'answer', answer: impact, backend: 'none' }, assets);
  assert.match(html, /<div class="via"[^>]*>via InventoryService\.__init__ → &lt;load_settings&gt;<\/div>/);
  assert.doesNotMatch(renderPage({ kind: 'answer', answer: base, backend: 'none' }, assets), /class="via"/);
});
