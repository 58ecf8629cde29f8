// Part of `npm run build`: writes the spec file's structure validators as ajv standalone code beside the built
// structure module (dist/src/pipeline/load/structure-validators.cjs), so that no run compiles the spec's schema. The module
// checks the schemas' hash before it uses them and compiles when they differ (a schema edited after the build).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { structureCode } = await import(path.join(root, 'dist/src/pipeline/load/structure.js'));
const out = path.join(root, 'dist/src/pipeline/load/structure-validators.cjs');
fs.writeFileSync(`${out}.tmp`, structureCode());
fs.renameSync(`${out}.tmp`, out);
