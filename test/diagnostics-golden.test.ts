/**
 * Golden diagnostics: each folder under test/fixtures/invalid is one bad spec (toolspec.yaml, plus any files it
 * includes) and its expected report, byte for byte, in expected.txt. Refresh with `npx vitest run -u`, then read
 * the diff: the expectations are the product's messages.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { countSummary, PLAIN } from '../src/report/text.js';
import { renderTexts } from '../src/report/findings.js';
import { loadModel } from '../src/compile.js';

const root = path.join(import.meta.dirname, 'fixtures', 'invalid');
const cases = fs
  .readdirSync(root)
  .filter((d) => fs.statSync(path.join(root, d)).isDirectory())
  .sort();

describe('golden diagnostics', () => {
  it('has a corpus', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  for (const name of cases) {
    it(name, async () => {
      const dir = path.join(root, name);
      const result = loadModel('toolspec.yaml', { cwd: dir });
      expect(result.model, 'a bad spec must not give a model').toBeUndefined();
      expect(result.diagnostics.some((d) => d.severity === 'error')).toBe(true);
      const report = `${renderTexts(result.diagnostics, PLAIN, result.sources)}\n\n${countSummary(result.diagnostics)}\n`;
      await expect(report).toMatchFileSnapshot(path.join(dir, 'expected.txt'));
    });
  }
});
