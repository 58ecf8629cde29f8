/** The runtime templates are copied into every generated server as they are: they must already be formatted. */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { formatTypeScript } from '../src/pipeline/emit/format.js';
import { STATIC_FILES } from '../src/pipeline/emit/templates.js';
import { repoRoot } from './helpers/cli.js';

it.each(STATIC_FILES)('templates/runtime/%s is formatted with the pinned prettier options', async (name) => {
  const text = fs.readFileSync(path.join(repoRoot, 'templates/runtime', name), 'utf8');
  expect(await formatTypeScript(text)).toBe(text);
});
