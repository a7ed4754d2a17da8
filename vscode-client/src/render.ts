/**
 * The results panel as HTML: header (a missing target's "no definition of X" first), results grouped by
 * file with modality badges and flags, every call site with its code line (a few a file, the rest
 * folded under "+N more"), and empty states that say why and what to try. Everything from
 * the server is escaped; the page allows only our stylesheet and our nonce'd script (strict CSP).
 * Pure, unit-tested; `panel.ts` hands the string to the webview.
 */
import type { Range, SearchAnswer, SearchResult } from './protocol';
import { badges, displayLine, emptyState, type FileGroup, flags, foldSites, groupByFile, header, impactPath, type Site, siteCount } from './results';

export interface PageAssets {
  nonce: string;
  cspSource: string;
  scriptUri: string;
  styleUri: string;
}

export type PanelContent =
  | { kind: 'welcome'; serverProblem?: string }
  | { kind: 'searching'; query: string }
  | { kind: 'failed'; query: string; message: string }
  | { kind: 'answer'; answer: SearchAnswer; backend: string | null };

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]);
}

/** A fresh nonce for each page, so an injected script tag can never run. */
export function makeNonce(random: () => number = Math.random): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from({ length: 32 }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
}

function rangeData(range: Range): string {
  return [range.start.line, range.start.character, range.end.line, range.end.character].join(',');
}

function hitAttributes(uri: string, range: Range, label: string): string {
  return `class="hit" role="treeitem" tabindex="-1" data-uri="${escapeHtml(uri)}" data-range="${rangeData(range)}" aria-label="${escapeHtml(label)}"`;
}

function renderBadges(result: SearchResult): string {
  const modality = badges(result).map((badge) =>
    `<span class="badge m-${badge.modality}" title="${escapeHtml(badge.title)}">${escapeHtml(badge.label)}</span>`);
  const flagged = flags(result).map((flag) =>
    `<span class="badge flag-${flag.kind}" title="${escapeHtml(flag.title)}">${escapeHtml(flag.label)}</span>`);
  return `<span class="badges">${[...modality, ...flagged].join('')}</span>`;
}

function renderSite(result: SearchResult, site: Site): string {
  const line = displayLine(site.range);
  const label = `${result.path} line ${line}${site.code ? ` ${site.code}` : ''}`;
  return `<div ${hitAttributes(result.uri, site.range, label).replace('class="hit"', 'class="hit site"')}><span class="line">Ln ${line}</span>`
    + `${site.code ? `<code class="snippet">${escapeHtml(site.code)}</code>` : ''}</div>`;
}

function renderResult(result: SearchResult, shown: Site[]): string {
  const line = displayLine(result.range);
  const symbol = result.symbol ?? '';
  const label = `${result.path} line ${line}${symbol ? ` ${symbol}` : ''}`;
  const symbolHtml = symbol
    ? `<span class="symbol">${escapeHtml(symbol)}</span>${result.kind ? `<span class="kind">${escapeHtml(result.kind)}</span>` : ''}`
    : '';
  const snippet = result.snippet.split('\n').find((text) => text.trim()) ?? '';
  const path = impactPath(result);
  const pathHtml = path
    ? `<div class="via" title="How this result depends on the target: the calls and imports the graph followed">${escapeHtml(path)}</div>`
    : '';
  return `<div class="result"><div ${hitAttributes(result.uri, result.range, label)}>`
    + `<span class="line">Ln ${line}</span>${symbolHtml}${renderBadges(result)}`
    + `<code class="snippet">${escapeHtml(snippet.trim())}</code></div>${pathHtml}`
    + `${shown.length ? `<div role="group" class="sites">${shown.map((site) => renderSite(result, site)).join('')}</div>` : ''}</div>`;
}

/** A file's results with their first sites shown and the rest folded under one expandable "+N more". */
function renderGroup(group: FileGroup): string {
  const { shown, folded } = foldSites(group);
  const hidden = folded.reduce((count, part) => count + part.length, 0);
  const more = hidden === 0 ? '' : `<details class="more"><summary tabindex="-1">+${hidden} more in this file</summary><div role="group">${
    group.hits.map((hit, index) => folded[index].map((site) => renderSite(hit, site)).join('')).join('')
  }</div></details>`;
  const count = siteCount(group);
  return `<section class="file" role="treeitem" aria-expanded="true"><div class="file-head" tabindex="-1" data-toggle>`
    + `<span class="twisty"></span><span class="path">${escapeHtml(group.path)}</span>`
    + `${group.language ? `<span class="language">${escapeHtml(group.language)}</span>` : ''}`
    + `<span class="count" title="${count} site${count === 1 ? '' : 's'} in this file">${count}</span></div>`
    + `<div role="group" class="hits">${group.hits.map((hit, index) => renderResult(hit, shown[index])).join('')}${more}</div></section>`;
}

function renderAnswer(answer: SearchAnswer, backend: string | null): string {
  const head = header(answer);
  const meta = [
    `<span class="intent" title="The classified intent and the classifier's confidence">${escapeHtml(head.intent)} · ${escapeHtml(head.confidence)}</span>`,
    `<span class="strategy" title="${escapeHtml(head.strategyTitle)}">${escapeHtml(head.strategy)}</span>`,
    `<span class="preset" title="fourfold.preset">${escapeHtml(head.preset)}</span>`,
    head.time ? `<span class="time">${escapeHtml(head.time)}</span>` : '',
    `<span class="counts">${escapeHtml(head.counts)}</span>`,
  ].join('');
  const modalities = head.modalities.map((item) =>
    `<span class="modality m-${item.modality}${item.ran ? '' : ' idle'}">${escapeHtml(item.label)}</span>`).join('');
  const notes = head.notes.map((note) => `<p class="note">${escapeHtml(note)}</p>`).join('');
  const missing = head.notFound ? `<p class="not-found" role="status">${escapeHtml(head.notFound)}</p>` : '';
  const top = `<header id="summary">${missing}<div class="query">“${escapeHtml(head.query)}”</div><div class="meta">${meta}</div>`
    + `<div class="modalities">${modalities}</div>${notes}</header>`;
  if (answer.results.length === 0) {
    const empty = emptyState(answer, backend);
    return top + `<div class="empty" id="empty"><p>${escapeHtml(empty.title)}</p><ul>${
      empty.hints.map((hint) => `<li>${escapeHtml(hint)}</li>`).join('')}</ul></div>`;
  }
  const groups = groupByFile(answer.results).map(renderGroup).join('');
  return top + `<div id="results" role="tree" aria-label="Search results">${groups}</div>`;
}

function renderBody(content: PanelContent): string {
  switch (content.kind) {
    case 'welcome':
      return `<div class="empty" id="empty">${content.serverProblem
        ? `<p>The Fourfold server is not running: ${escapeHtml(content.serverProblem)}</p><p>Set <code>fourfold.server.command</code>, then run “Fourfold: Restart Language Server”.</p>`
        : '<p>No search yet.</p><p>Run “Fourfold: Search” (Ctrl+Alt+F) and ask a question: <code>where is parseConfig defined</code>, <code>who calls load_settings</code>, <code>"connection refused"</code>, <code>how does retry work</code>.</p>'}</div>`;
    case 'searching':
      return `<div class="empty" id="empty"><p>Searching for “${escapeHtml(content.query)}”…</p></div>`;
    case 'failed':
      return `<div class="empty error" id="empty"><p>The search for “${escapeHtml(content.query)}” failed: ${escapeHtml(content.message)}</p><p>See “Fourfold: Show Server Log” for details.</p></div>`;
    case 'answer':
      return renderAnswer(content.answer, content.backend);
  }
}

/** The complete webview document for `content`. */
export function renderPage(content: PanelContent, assets: PageAssets): string {
  const csp = [
    "default-src 'none'",
    `style-src ${assets.cspSource}`,
    `script-src 'nonce-${assets.nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">`
    + `<meta http-equiv="Content-Security-Policy" content="${csp}">`
    + `<meta name="viewport" content="width=device-width, initial-scale=1">`
    + `<link rel="stylesheet" href="${escapeHtml(assets.styleUri)}"><title>Fourfold results</title></head>`
    + `<body>${renderBody(content)}<script nonce="${assets.nonce}" src="${escapeHtml(assets.scriptUri)}"></script></body></html>`;
}
