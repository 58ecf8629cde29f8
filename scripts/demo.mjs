// npm run demo: the main job on the bundled example specs. Validates each one and shows what toolspec read.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'toolspec.js');
let failed = false;
for (const spec of ['specs/todo/toolspec.yaml', 'specs/docs/toolspec.yaml']) {
  console.log(`$ toolspec validate ${spec}`);
  const r = spawnSync(process.execPath, [bin, 'validate', spec], { cwd: root, stdio: 'inherit' });
  failed ||= r.status !== 0;
  console.log('');
}
process.exitCode = failed ? 1 : 0;
