// drive.mjs -- Playwright helpers that drive VS Code in the browser (code-server) with Debian's
// Chromium, as a user would: the command palette, input boxes, Ctrl+T, notifications, webviews.
//
//   import * as vsc from './harness/drive.mjs';
//   const { browser, page } = await vsc.openWorkbench(url);   // url from run_code_server.sh start
//   await vsc.runCommand(page, 'Fourfold: Search'); await vsc.answerInput(page, 'parse config');
//   const text = await vsc.webviewText(page, { contains: 'config.js' });
//
// playwright-core comes from $HARNESS_TOOLS/node_modules (setup.sh installs it; env.sh sets the
// variable); the browser is $CHROMIUM or /usr/bin/chromium, headless, with a fresh profile per launch.
// Selectors are VS Code 1.100's (code-server 4.100.3).
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

// As root on a closed network: no sandbox, no GPU, nothing that phones home.
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

function playwright() {
  const tools = process.env.HARNESS_TOOLS;
  if (!tools) throw new Error('HARNESS_TOOLS is not set: source the env.sh that tests/e2e/vscode/harness/setup.sh wrote');
  return createRequire(path.join(tools, 'package.json'))('playwright-core');
}

/**
 * Open the workbench at `url` in a new headless Chromium and wait until it is usable. Page errors
 * and failed requests are collected in page.harnessErrors (printed by the test, informational).
 */
export async function openWorkbench(url, { viewport = { width: 1400, height: 900 }, timeout = 90_000, settle = 1500 } = {}) {
  const browser = await playwright().chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS,
  });
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  page.harnessErrors = [];
  page.on('pageerror', (e) => page.harnessErrors.push(`pageerror: ${e.message}`));
  page.on('response', (r) => {
    // vsda (Microsoft's signing module) is not shipped with code-server: its 404s are expected.
    if (r.status() >= 400 && !/\/vsda\//.test(r.url())) page.harnessErrors.push(`HTTP ${r.status()} ${r.url()}`);
  });
  await page.goto(url, { timeout });
  await page.waitForSelector('.monaco-workbench .part.statusbar', { timeout });
  await page.waitForSelector('.monaco-workbench .part.activitybar, .monaco-workbench .part.sidebar', { timeout });
  if (settle) await page.waitForTimeout(settle);
  return { browser, context, page };
}

const QI = '.quick-input-widget';
const QI_INPUT = `${QI} .quick-input-box input`;
const QI_ROW = `${QI} .quick-input-list .monaco-list-row`;

function escapeRe(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }

/**
 * Press `key` to open a quick input and type `text`. Retries, because a view that takes the focus
 * while it starts closes the quick input again; from the third try on it uses F1, where the text's
 * prefix ('>' commands, '#' workspace symbols) selects the same provider.
 */
async function openQuickInput(page, key, text, { attempts = 4 } = {}) {
  let lastErr;
  for (let i = 0; i < attempts; i++) {
    try {
      await page.keyboard.press(i >= 2 ? 'F1' : key);
      await page.waitForSelector(QI_INPUT, { state: 'visible', timeout: 3_000 });
      await page.fill(QI_INPUT, text, { timeout: 3_000 });
      await page.waitForTimeout(150);
      if (await page.locator(QI_INPUT).isVisible()) return;
      lastErr = new Error('quick input closed right after opening');
    } catch (e) { lastErr = e; }
    await page.keyboard.press('Escape').catch(() => {});
    await page.waitForTimeout(300);
  }
  throw new Error(`could not open the quick input with ${key} (${attempts} tries): ${lastErr && lastErr.message.split('\n')[0]}`);
}

/** Close whatever quick input is open. */
export async function closeQuickInput(page) {
  if (await page.locator(QI).isVisible()) await page.keyboard.press('Escape');
  await page.waitForSelector(QI, { state: 'hidden' }).catch(() => {});
}

async function quickInputRows(page) {
  return page.$$eval(QI_ROW, (els) => els.map((e) => (e.querySelector('.label-name')?.textContent
    ?? e.getAttribute('aria-label') ?? '').trim()));
}

/** Run a command by its palette title ("Category: Title"); does not wait for it to finish. */
export async function runCommand(page, title, { timeout = 15_000, attempts = 3 } = {}) {
  const row = page.locator(QI_ROW).filter({
    has: page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRe(title)}\\s*$`) }),
  }).first();
  const deadline = Date.now() + timeout;
  for (let i = 1; ; i++) {
    await openQuickInput(page, 'F1', '>' + title);
    try {
      await row.waitFor({ state: 'visible', timeout: Math.max(1_000, deadline - Date.now()) });
      await row.click({ timeout: 5_000 });
      return;
    } catch (e) {
      const stillOpen = await page.locator(QI_INPUT).isVisible();
      const rows = stillOpen ? await quickInputRows(page) : [];
      await closeQuickInput(page);
      if (stillOpen || i >= attempts || Date.now() >= deadline) {  // retry only if something closed it under us
        throw new Error(`command "${title}" not run: ${stillOpen ? 'not in the palette' : 'palette kept closing'}; rows: ${JSON.stringify(rows)}`);
      }
    }
  }
}

/** Answer a showInputBox / showQuickPick prompt: type `text` and press Enter. */
export async function answerInput(page, text, { timeout = 15_000 } = {}) {
  await page.waitForSelector(QI_INPUT, { state: 'visible', timeout });
  await page.fill(QI_INPUT, text);
  await page.keyboard.press('Enter');
}

async function notifications(page) {
  return page.$$eval('.notifications-toasts .notification-list-item-message, .notifications-center .notification-list-item-message',
    (els) => els.map((e) => e.textContent.trim()));
}

/** Wait until a notification whose text matches (substring or RegExp) is shown; returns its text. */
export async function waitForNotification(page, match, { timeout = 20_000 } = {}) {
  const test = typeof match === 'string' ? (t) => t.includes(match) : (t) => match.test(t);
  const deadline = Date.now() + timeout;
  let seen = [];
  while (Date.now() < deadline) {
    seen = await notifications(page);
    const hit = seen.find(test);
    if (hit) return hit;
    await page.waitForTimeout(250);
  }
  throw new Error(`no notification matching ${match} within ${timeout} ms; shown: ${JSON.stringify(seen)}`);
}

export async function clearNotifications(page) {
  await runCommand(page, 'Notifications: Clear All Notifications');
}

/**
 * Ctrl+T (quick access '#'): the row labels. With { expect } it retries until such a row appears,
 * since the language server may still be starting right after the page opens.
 */
export async function workspaceSymbols(page, query, { expect, timeout = 30_000, keepOpen = false } = {}) {
  const deadline = Date.now() + timeout;
  const matches = expect === undefined ? null : (typeof expect === 'string' ? (r) => r === expect : (r) => expect.test(r));
  let rows = [];
  for (;;) {
    await closeQuickInput(page);
    await openQuickInput(page, 'Control+t', '#' + query);
    const settleEnd = Math.min(deadline, Date.now() + 5_000);  // results arrive asynchronously
    do {
      await page.waitForTimeout(300);
      rows = await quickInputRows(page);
      if (matches ? rows.some(matches) : rows.length && !rows.every((r) => /^No matching/.test(r))) break;
    } while (Date.now() < settleEnd);
    if (!matches || rows.some(matches) || Date.now() >= deadline) break;
  }
  if (!keepOpen) await closeQuickInput(page);
  if (matches && !rows.some(matches)) throw new Error(`workspace symbol "${query}": no row ${expect}; rows: ${JSON.stringify(rows)}`);
  return rows.filter((r) => !/^No matching/.test(r));
}

/**
 * Ctrl+T for `query`, then pick the row named `name` whose aria label mentions `file` (VS Code puts the
 * symbol's folder and file there) and press Enter on it, so the editor jumps to where the server put it.
 */
export async function goToWorkspaceSymbol(page, query, name, file, { timeout = 30_000 } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    await closeQuickInput(page);
    await openQuickInput(page, 'Control+t', '#' + query);
    const row = page.locator(QI_ROW).filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRe(name)}$`) }) })
      .filter({ hasText: file });
    try {
      await row.first().waitFor({ state: 'visible', timeout: Math.min(5_000, Math.max(500, deadline - Date.now())) });
      await row.first().click({ timeout: 5_000 });
      return;
    } catch (e) {
      if (Date.now() >= deadline) {
        const rows = await quickInputRows(page);
        await closeQuickInput(page);
        throw new Error(`workspace symbol "${query}": no row ${name} in ${file}; rows: ${JSON.stringify(rows)}`);
      }
    }
  }
}

/**
 * Text of the webviews on the page. Webview content lives two iframes deep; every frame whose url is
 * a webview's fake.html document is read. With { contains } it waits until one has that text.
 */
export async function webviewText(page, { contains, timeout = 15_000 } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const texts = [];
    for (const f of page.frames()) {
      if (!/fake\.html/.test(f.url())) continue;
      const t = await f.evaluate(() => (document.body ? document.body.innerText : '')).catch(() => '');
      if (t) texts.push(t);
    }
    const all = texts.join('\n----\n');
    if (!contains || all.includes(contains) || Date.now() > deadline) return all;
    await page.waitForTimeout(250);
  }
}

/** PNG screenshot of the page (creates the folder). */
export async function screenshot(page, file) {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  await page.screenshot({ path: file });
  return file;
}
