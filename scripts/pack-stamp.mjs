#!/usr/bin/env node
/**
 * `npm pack` (prepack) writes dist/packed.json, `{ "tarball": "<absolute path of the .tgz being made>" }`, into the
 * package; postpack (`--remove`) takes it out of the working tree again. A copy of toolspec installed from that
 * tarball (`npm install -g ./toolspec-0.1.0.tgz`, which records nowhere where it came from) then knows it, and
 * `toolspec init` writes the tarball as the new project's dependency instead of a registry range that would not
 * install (src/init.ts). `npm publish` writes no stamp: a registry copy has none.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const stamp = path.join(root, 'dist', 'packed.json');

// First, always: a stamp left by a pack that failed before its postpack must not reach a published package.
fs.rmSync(stamp, { force: true });
const packing = process.env.npm_command === 'pack' && process.env.npm_config_dry_run !== 'true';
if (!process.argv.includes('--remove') && packing) {
  const { name, version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  // npm's own naming: "@scope/name" packs as "scope-name-<version>.tgz", into --pack-destination or the folder npm
  // was run from (INIT_CWD), which is not this one when the user ran `npm pack <folder>`.
  const file = `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
  const from = process.env.INIT_CWD ?? process.cwd();
  const tarball = path.resolve(from, process.env.npm_config_pack_destination ?? '.', file);
  fs.mkdirSync(path.dirname(stamp), { recursive: true });
  fs.writeFileSync(stamp, `${JSON.stringify({ tarball }, null, 2)}\n`);
}
