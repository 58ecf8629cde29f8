// npm run bench: every benchmark, in one run, written to bench/RESULTS.md. Not part of npm test.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchCheck, checkTable } from './check.mjs';
import { machine } from './lib.mjs';
import { benchGenerate, generateTables } from './generate.mjs';
import { benchServer, serverTables } from './server.mjs';
import { targetsTable } from './targets.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.env.RUNS ?? 5);
const started = Date.now();
const versions = [
  'typescript',
  'ts-morph',
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/node',
  '@modelcontextprotocol/client',
  'zod',
  'ajv',
]
  .map((p) => `${p} ${JSON.parse(fs.readFileSync(path.join(root, 'node_modules', p, 'package.json'), 'utf8')).version}`)
  .join(', ');

console.error('generate beside openapi-mcp-generator …');
const generateRows = benchGenerate({ runs });
const generate = generateTables(generateRows);
console.error('check beside tsc --noEmit …');
const checkRows = benchCheck({ runs });
const check = checkTable(checkRows);
console.error('the generated server beside McpServer …');
const serverRows = await benchServer({ runs });
const server = serverTables(serverRows);
const targets = targetsTable({ generate: generateRows, check: checkRows, server: serverRows });

const report = `# Benchmark results

Written by \`npm run bench\`; every figure is the median of ${runs} runs with min–max, each ratio computed pair by pair
within the same run. Machine: ${machine()}. Versions: toolspec ${JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version}, ${versions}.
Projects: seeded synthetic specs (bench/synth.mjs) with every handler written.

## The targets

${targets}

${fs.readFileSync(path.join(root, 'bench/NOTES.md'), 'utf8').trim()}

## toolspec generate beside openapi-mcp-generator

${generate}

## toolspec check beside tsc --noEmit of the same project

Warm: the local cache of the last generate and of handlers found clean is in place (a developer's commit after a
generate). Cold: the cache is removed before each run (a CI machine that restores none), so check loads the spec,
regenerates in memory, compares, and type-checks every handler.

${check}

## The generated server beside the SDK's McpServer (zod, and fromJsonSchema), on both protocol eras

${server}

Took ${((Date.now() - started) / 1000).toFixed(0)} s.
`;
fs.writeFileSync(path.join(root, 'bench/RESULTS.md'), report);
console.log(report);
