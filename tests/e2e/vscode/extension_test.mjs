// extension_test.mjs -- the Fourfold VS Code extension in a real editor (code-server + Chromium,
// driven by Playwright through harness/drive.mjs). scripts/vscode-e2e.sh builds the
// .vsix, starts code-server on a copy of tests/fixtures/polyglot and runs:
//
//   node extension_test.mjs URL WORKSPACE OUT_DIR
//
// One PASS/FAIL line per check, screenshots in OUT_DIR, a closing "N passed, N failed" line, exit 1
// on any failure. Waits poll the page for a condition (bounded); nothing sleeps for synchronisation.
import fs from 'node:fs';
import path from 'node:path';
import * as vsc from './harness/drive.mjs';

const [url, workspace, outDir = 'vscode-e2e-out'] = process.argv.slice(2);
if (!url || !workspace) { console.error('usage: node extension_test.mjs URL WORKSPACE [OUT_DIR]'); process.exit(2); }

let passed = 0, failed = 0, page, browser;
const shot = (name) => vsc.screenshot(page, path.join(outDir, name));

async function check(name, fn) {
  const t = Date.now();
  try {
    const detail = await fn();
    passed++;
    console.log(`PASS ${name} (${Date.now() - t} ms)${detail ? ' -- ' + detail : ''}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name} (${Date.now() - t} ms) -- ${e.message.split('\n')[0]}`);
    if (page) await shot(`FAIL-${name.replace(/\W+/g, '_')}.png`).catch(() => {});
  }
}

/** Poll `probe` until it returns a truthy value; throws with `what` and the last value after `timeout`. */
async function until(what, probe, { timeout = 30_000, every = 250 } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    last = await probe().catch((e) => `error: ${e.message}`);
    if (last && !(typeof last === 'string' && last.startsWith('error: '))) return last;
    if (Date.now() > deadline) throw new Error(`${what} not seen within ${timeout} ms; last: ${JSON.stringify(last)}`);
    await page.waitForTimeout(every);
  }
}

const statusText = () => page.locator('.part.statusbar').innerText();

/** The results webview's frame (the one whose document has the results tree or the empty state). */
async function resultsFrame() {
  for (const frame of page.frames()) {
    if (!/fake\.html/.test(frame.url())) continue;
    if (await frame.locator('#summary, #empty').count().catch(() => 0)) return frame;
  }
  return undefined;
}

async function searchFor(query, contains, { timeout = 20_000 } = {}) {
  await vsc.runCommand(page, 'Fourfold: Search');
  await vsc.answerInput(page, query);
  return until(`results for "${query}" containing ${contains}`, async () => {
    const text = await vsc.webviewText(page, { timeout: 0 });
    return text.includes(`“${query}”`) && text.includes(contains) ? text : '';
  }, { timeout });
}

const t0 = Date.now();
let readyAt, firstResultAt;

await check('workbench opens', async () => {
  ({ browser, page } = await vsc.openWorkbench(url, { settle: 0 }));
  return `${Date.now() - t0} ms`;
});

if (page) {
  await check('status bar reaches ready with file and symbol counts', async () => {
    const text = await until('Fourfold ready in the status bar', async () => {
      const bar = await statusText();
      return /Fourfold \d[\d,]* files · \d[\d,]* symbols/.test(bar) ? bar.match(/Fourfold [^\n]*symbols/)[0] : '';
    }, { timeout: 90_000 });
    readyAt = Date.now();
    return `"${text}" ${readyAt - t0} ms after opening`;
  });

  await check('palette search for a definition shows the file, line, intent and strategy', async () => {
    const text = await searchFor('where is parseConfig defined', 'web/src/config.js');
    firstResultAt = Date.now();
    for (const want of ['find_definition · 90%', 'direct', 'Ln 4', 'parseConfig', 'structural 100%']) {
      if (!text.includes(want)) throw new Error(`panel lacks ${JSON.stringify(want)}: ${JSON.stringify(text.slice(0, 400))}`);
    }
    const lines = text.split('\n');
    if (lines.findIndex((l) => l.includes('web/src/config.js')) > lines.findIndex((l) => l.includes('config.go'))) {
      throw new Error('web/src/config.js is not the first file');
    }
    await shot('1-panel-definition.png');
    return `first result ${firstResultAt - t0} ms after opening the folder`;
  });

  await check('clicking a result opens the file at that line with the range selected', async () => {
    const frame = await resultsFrame();
    if (!frame) throw new Error('results webview not found');
    await frame.locator('.hit[data-uri$="/web/src/config.js"]').first().click();
    const tab = await until('config.js as the active tab', async () =>
      (await page.locator('.tabs-container .tab.active').innerText().catch(() => '')).includes('config.js') ? 'config.js' : '');
    const position = await until('cursor at line 4', async () => {
      const bar = await statusText();
      return /Ln 4, Col 1 \(\d+ selected\)/.test(bar) ? bar.match(/Ln 4, Col 1 \(\d+ selected\)/)[0] : '';
    }, { timeout: 10_000 });
    await shot('2-opened-result.png');
    return `${tab}, ${position}`;
  });

  await check('an impact search shows the path each result depends on the target by', async () => {
    const text = await searchFor('what depends on load_settings', 'inventory/service.py');
    const want = 'via InventoryService.__init__ → load_settings';
    if (!text.includes(want)) throw new Error(`panel lacks ${JSON.stringify(want)}: ${JSON.stringify(text.slice(0, 400))}`);
    await shot('3-panel-impact.png');
    return want;
  });

  await check('Ctrl+T lists the symbol', async () => {
    const rows = await vsc.workspaceSymbols(page, 'parseConfig', { expect: 'parseConfig', keepOpen: true });
    await shot('3-workspace-symbols.png');
    await vsc.closeQuickInput(page);
    return JSON.stringify(rows.slice(0, 4));
  });

  // Each of these files calls the name above the line that defines it (tests/fixtures/languages);
  // Ctrl+T must put the cursor on the definition's name, never on the use.
  for (const [file, name, defines] of [
    ['client.kt', 'makeClient', /^fun makeClient\b/],
    ['config.lua', 'merge', /^function M\.merge\b/],
    ['report.py', 'render', /^def render\b/],
  ]) {
    await check(`Ctrl+T on ${name} (used above its definition in ${file}) lands on the definition's name`, async () => {
      const lines = fs.readFileSync(path.join(workspace, 'languages', file), 'utf8').split('\n');
      const line = lines.findIndex((l) => defines.test(l));
      const use = lines.findIndex((l) => l.includes(name));
      if (line < 0 || use >= line) throw new Error(`fixture ${file} does not use ${name} above its definition`);
      const want = `Ln ${line + 1}, Col ${lines[line].indexOf(name) + 1}`;
      await vsc.goToWorkspaceSymbol(page, name, name, file);
      await until(`${file} as the active tab`, async () =>
        (await page.locator('.tabs-container .tab.active').innerText().catch(() => '')).includes(file) ? file : '');
      return until(`cursor at ${want}`, async () => {
        const found = (await statusText()).match(/Ln \d+, Col \d+/);
        return found && found[0] === want ? want : '';
      }, { timeout: 10_000 });
    });
  }

  await check('a file created on disk is found by the next search', async () => {
    fs.writeFileSync(path.join(workspace, 'web', 'src', 'fresh.js'),
      'export function freshlyAddedHelper(items) {\n  return items.filter(Boolean);\n}\n');
    const deadline = Date.now() + 30_000;
    let text = '';
    while (Date.now() < deadline) {
      text = await searchFor('freshlyAddedHelper', '', { timeout: 10_000 });
      if (text.includes('web/src/fresh.js')) break;
    }
    if (!text.includes('web/src/fresh.js')) throw new Error(`not found: ${JSON.stringify(text.slice(0, 300))}`);
    await shot('4-panel-new-file.png');
    return 'web/src/fresh.js';
  });

  await check('a bad server command shows an actionable message with a button to the setting', async () => {
    await vsc.clearNotifications(page);
    const settingsFile = path.join(workspace, '.vscode', 'settings.json');
    const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
    settings['fourfold.server.command'] = ['/nonexistent/fourfold', 'serve'];
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
    const message = await vsc.waitForNotification(page, /cannot start its language server.*\/nonexistent\/fourfold/, { timeout: 30_000 });
    const button = page.locator('.notifications-toasts .monaco-button', { hasText: 'Open Setting' }).first();
    await button.waitFor({ state: 'visible', timeout: 5_000 });
    await shot('5-server-missing.png');
    await button.click();
    await until('the settings editor on fourfold.server.command', async () =>
      (await page.locator('.settings-editor').innerText().catch(() => '')).includes('Server: Command') ? 'shown' : '');
    const bar = await statusText();
    if (!bar.includes('Fourfold') || /Fourfold \d[\d,]* files/.test(bar)) throw new Error(`status bar still claims a running index: ${JSON.stringify(bar)}`);
    return JSON.stringify(message.slice(0, 140));
  });

  if (page.harnessErrors.length) console.log('page errors (informational):\n  ' + page.harnessErrors.slice(0, 10).join('\n  '));
  await browser.close();
}
if (readyAt && firstResultAt) {
  console.log(`first minute: index ready ${readyAt - t0} ms and first result ${firstResultAt - t0} ms after opening the folder`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
