/** The import rules of ARCHITECTURE.md (scripts/layers.mjs): they hold for src/, and a broken one is caught. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/cli.js';

const run = (src?: string) =>
  spawnSync(process.execPath, [path.join(repoRoot, 'scripts/layers.mjs')], {
    encoding: 'utf8',
    env: { ...process.env, ...(src ? { LAYERS_SRC: src } : {}) },
  });

describe('layers', () => {
  it('hold for src/', () => {
    const r = run();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('catch an emitter that imports validate, a module that prints and one that writes', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolspec-layers-'));
    try {
      fs.cpSync(path.join(repoRoot, 'src'), dir, { recursive: true });
      fs.appendFileSync(path.join(dir, 'emit/stub.ts'), "\nexport { checkTools } from '../validate/tools.js';\n");
      fs.appendFileSync(path.join(dir, 'lint/lint.ts'), "\nexport const shout = () => console.log('x');\n");
      fs.appendFileSync(
        path.join(dir, 'emit/text.ts'),
        "\nimport fs from 'node:fs';\nexport const put = () => fs.writeFileSync('x', '');\n",
      );
      const r = run(dir);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('src/emit/stub.ts: imports src/validate/tools.ts; emit may import only');
      expect(r.stderr).toMatch(/src\/lint\/lint\.ts:\d+: prints; only the CLI prints/);
      expect(r.stderr).toMatch(/src\/emit\/text\.ts:\d+: writes to the disk/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
