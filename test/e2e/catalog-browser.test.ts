/**
 * The catalog of specs/docs in a real browser (Debian's headless Chromium over the DevTools Protocol,
 * test/helpers/cdp.ts): every tool of the spec is on the page, typing in the search box filters the items, the
 * page logs no error and asks for nothing over the network, and a screenshot is kept as an artifact
 * (test/e2e/artifacts/catalog.png, not committed; docs/images/catalog.png is the README's copy). Without Chromium
 * the test fails and says what to install: it never skips.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../src/compile.js';
import type { ServerModel } from '../../src/pipeline/model.js';
import { openPage, type Page } from '../helpers/cdp.js';
import { repoRoot, runCli } from '../helpers/cli.js';

const SPEC = 'specs/docs/toolspec.yaml';
const ARTIFACT = path.join(repoRoot, 'test/e2e/artifacts/catalog.png');

describe('the catalog of specs/docs in headless Chromium', () => {
  let page: Page;
  let model: ServerModel;
  let dir: string;
  let url: string;

  beforeAll(async () => {
    model = loadModel(SPEC, { cwd: repoRoot }).model!;
    expect(model, `${SPEC} loads`).toBeDefined();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolspec-catalog-'));
    const out = path.join(dir, 'catalog.html');
    const made = runCli(['docs', SPEC, '--out', out], repoRoot);
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    url = pathToFileURL(out).href;
    page = await openPage();
    await page.send('Runtime.enable');
    await page.send('Log.enable');
    await page.send('Network.enable');
    await page.send('Page.enable');
    await page.send('Emulation.setDeviceMetricsOverride', {
      width: 1280,
      height: 1600,
      deviceScaleFactor: 1,
      mobile: false,
    });
    const loaded = page.next('Page.loadEventFired');
    await page.send('Page.navigate', { url });
    await loaded;
  });

  afterAll(async () => {
    await page?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The names of the items the page shows (not hidden by the filter), in page order. */
  const visible = (kind: string) =>
    page.evaluate<string[]>(
      `[...document.querySelectorAll('article.${kind}')].filter((a) => a.offsetParent !== null).map((a) => a.querySelector('h3 code').textContent)`,
    );

  it('shows every tool, prompt and resource of the spec, in its order', async () => {
    expect(await page.evaluate<string>('document.title')).toBe(
      `${model.server.title} ${model.server.version}: catalog`,
    );
    expect(await visible('tool')).toEqual(model.tools.map((t) => t.name));
    expect(await visible('prompt')).toEqual(model.prompts.map((p) => p.name));
    expect(await visible('resource')).toEqual(model.resources.map((r) => r.name));
    // The descriptions are text as written, and the badges are there.
    const first = model.tools[0]!;
    expect(await page.evaluate<string>(`document.querySelector('#tool-0 p.text').textContent`)).toBe(
      first.definition.description,
    );
    expect(await page.evaluate<number>(`document.querySelectorAll('#tool-0 .badge.hint').length`)).toBeGreaterThan(0);
  });

  it('filters the items by what is typed in the search box, and shows them all again when it is cleared', async () => {
    const word = 'bookmark';
    const matches = (texts: (string | undefined)[]) => texts.join(' ').toLowerCase().includes(word);
    const expected = model.tools
      .filter((t) => matches([t.name, t.definition.title, t.definition.description]))
      .map((t) => t.name);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(model.tools.length);

    await page.evaluate(`document.getElementById('search').focus()`);
    await page.send('Input.insertText', { text: word });
    expect(await page.evaluate<string>(`document.getElementById('search').value`)).toBe(word);
    expect(await visible('tool')).toEqual(expected);
    expect(await visible('prompt')).toEqual([]);
    const counted = model.tools.length + model.prompts.length + model.resources.length;
    expect(await page.evaluate<string>(`document.getElementById('search-count').textContent`)).toBe(
      `${expected.length} of ${counted} shown`,
    );
    // The table of contents follows the filter.
    expect(
      await page.evaluate<string[]>(
        `[...document.querySelectorAll('nav li')].filter((l) => !l.hidden).map((l) => l.textContent)`,
      ),
    ).toEqual(expected);

    // Clear it as a user would: select all, delete.
    await page.evaluate(`document.getElementById('search').select()`);
    await page.send('Input.dispatchKeyEvent', {
      type: 'keyDown',
      key: 'Backspace',
      code: 'Backspace',
      windowsVirtualKeyCode: 8,
    });
    await page.send('Input.dispatchKeyEvent', {
      type: 'keyUp',
      key: 'Backspace',
      code: 'Backspace',
      windowsVirtualKeyCode: 8,
    });
    expect(await page.evaluate<string>(`document.getElementById('search').value`)).toBe('');
    expect(await visible('tool')).toEqual(model.tools.map((t) => t.name));
  });

  it('logs no error, throws nothing and fetches nothing', () => {
    const problems = page.events.filter(
      (e) =>
        e.method === 'Runtime.exceptionThrown' ||
        (e.method === 'Runtime.consoleAPICalled' &&
          ['error', 'warning', 'assert'].includes(String(e.params['type']))) ||
        (e.method === 'Log.entryAdded' &&
          ['error', 'warning'].includes(String((e.params['entry'] as { level?: string }).level))),
    );
    expect(problems).toEqual([]);
    const requests = page.events
      .filter((e) => e.method === 'Network.requestWillBeSent')
      .map((e) => (e.params['request'] as { url: string }).url);
    expect(requests).toEqual([url]);
  });

  it('takes a screenshot', async () => {
    const shot = (await page.send('Page.captureScreenshot', { format: 'png' })) as { data: string };
    const png = Buffer.from(shot.data, 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    fs.mkdirSync(path.dirname(ARTIFACT), { recursive: true });
    fs.writeFileSync(ARTIFACT, png);
  });
});
