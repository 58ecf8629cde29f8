/** `npm run demo` (the README's main job) works: generate, compile, serve, and call through the SDK client. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

it('runs the demo on the bundled example spec', () => {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/demo.mjs')], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/38 files, 0 errors/);
  expect(r.stdout).toContain('connected to todo-server 1.0.0 on protocol 2026-07-28');
  expect(r.stdout).toContain('the server asks: Remove #2 "Write the report" from the list?');
  expect(r.stdout).toContain('Removed #2 Write the report.');
  expect(r.stdout).toContain('"text": "Buy milk"');
  expect(r.stdout).toContain('- priority: must be one of "low", "normal", "high"');
  expect(r.stdout).toContain('[x] #1 Buy milk (normal, due 2026-12-01)');
  // A resource read through its template, its id completed, and a prompt got with the list in it.
  expect(r.stdout).toContain('"uri": "todo://items/2"');
  expect(r.stdout).toContain('\\"text\\":\\"Call the plumber\\"');
  expect(r.stdout).toMatch(/"values": \[\s*"2"\s*\]/);
  expect(r.stdout).toContain(
    'user: Plan my day, urgent first. My open items:\n- #2 Call the plumber (normal, due 2026-12-02)',
  );
});
