// The tools/call path alone, quickly: the generated server beside the SDK's path without validation on the 2025
// wire (InMemoryTransport, as in bench/server.mjs), and the dispatcher alone beside a hand-written loop, at one size
// (SIZE, default 500), RUNS iterations (default 5) of interleaved blocks, pair-by-pair ratios. It is the part of
// `npm run bench` (server section) that the dispatcher's own cost shows in, runnable on its own in a minute or two
// while working on templates/runtime, and the workload to profile:
//
//   npm run build && node bench/calls.mjs
//   ONLY=toolspec node --cpu-prof --cpu-prof-dir=bench/.work/prof bench/calls.mjs   (toolspec's calls alone)
//
// Not a replacement for the server section: its figures are the ones RESULTS.md judges.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stats, pairRatio } from './lib.mjs';
import { Server } from '@modelcontextprotocol/server';
import { plainServerFactory } from './mcp-server.mjs';
import {
  argumentsFor,
  callBlock,
  connectLegacy,
  importGenerated,
  interleave,
  makeAjv,
  makeLoops,
  prepare,
} from './server.mjs';

const n = Number(process.env.SIZE ?? 500);
const runs = Number(process.env.RUNS ?? 5);
// ONLY=toolspec or ONLY=plain: that contestant's calls alone (a profile of one); MODES=valid-1,invalid-64: those
// figures only (default: all four, and the dispatcher alone).
const only = process.env.ONLY;
const CALLS = 4000;
const BLOCKS = 5;
const DISPATCH_CALLS = 20000;
const MODES = [
  { args: 'valid', inflight: 1 },
  { args: 'valid', inflight: 64 },
  { args: 'invalid', inflight: 1 },
  { args: 'invalid', inflight: 64 },
].filter((m) => !process.env.MODES || process.env.MODES.split(',').includes(`${m.args}-${m.inflight}`));
const alone = !process.env.MODES && only !== 'plain';

const p = prepare(n);
// BEFORE=<folder>: a copy of an earlier compiled dist/generated of the same project (its index.js), run beside it
// in the same process on the same handlers: a before/after figure of a change to templates/runtime.
const before = process.env.BEFORE ? await importGenerated(path.resolve(process.env.BEFORE, 'index.js')) : undefined;
const gen = await importGenerated(p.index);
const context = await importGenerated(p.context);
const ajv = makeAjv();
const calls = { valid: [], invalid: [] };
const reqs = { valid: [], invalid: [] };
for (const tool of p.tools) {
  const args = argumentsFor(tool);
  for (const kind of ['valid', 'invalid']) {
    calls[kind].push(JSON.stringify({ name: tool.name, arguments: args[kind] }));
    reqs[kind].push(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: tool.name, arguments: args[kind] },
      }),
    );
  }
}
/**
 * The no-validation path again, calling the project's own handler modules (one module per tool, as toolspec does)
 * instead of bench/mcp-server.mjs's two shared closures: what the handler code alone costs when each tool's is
 * distinct and called once every 500 calls.
 */
function ownHandlersFactory() {
  const list = { tools: p.tools };
  return () => {
    const server = new Server({ name: 'bench-own', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => list);
    server.setRequestHandler('tools/call', async (request) => {
      const value = await gen.handlers[request.params.name](request.params.arguments ?? {}, {});
      return typeof value === 'string'
        ? { content: [{ type: 'text', text: value }] }
        : { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
    });
    return server;
  };
}
const factories = {
  ...(only === 'plain' ? {} : { toolspec: gen.createServerFactory(gen.handlers, { onError: () => {} }) }),
  ...(only === 'toolspec' ? {} : { plain: plainServerFactory(p.tools) }),
  ...(only ? {} : { own: ownHandlersFactory() }),
  ...(before ? { before: before.createServerFactory(gen.handlers, { onError: () => {} }) } : {}),
};
const conns = {};
for (const [name, factory] of Object.entries(factories)) conns[name] = await connectLegacy(factory);
const expectError = (name, kind) => kind === 'invalid' && (name === 'toolspec' || name === 'before');
const loops = await makeLoops(gen, context, p.tools, ajv);
// Warm-up: every tool once, then a block in flight.
for (const [name, conn] of Object.entries(conns)) {
  for (const kind of ['valid', 'invalid']) {
    await callBlock(conn, calls[kind], 0, calls[kind].length, 1, expectError(name, kind));
    await callBlock(conn, calls[kind], 0, CALLS / 4, 64, expectError(name, kind));
  }
}
for (const kind of alone ? ['valid', 'invalid'] : []) {
  await loops.dispatch(reqs[kind], 0, 5000, kind === 'invalid');
  if (!only) await loops.loop(reqs[kind], 0, 5000, kind === 'invalid');
}

const rates = MODES.map(() => Object.fromEntries(Object.keys(conns).map((k) => [k, []])));
const dispatch = { valid: { toolspec: [], loop: [] }, invalid: { toolspec: [], loop: [] } };
for (let i = 0; i < runs; i++) {
  for (const [k, mode] of MODES.entries()) {
    const per = CALLS / BLOCKS;
    const secs = await interleave(
      BLOCKS,
      Object.fromEntries(
        Object.keys(conns).map((name) => [
          name,
          (b) => callBlock(conns[name], calls[mode.args], b * per, per, mode.inflight, expectError(name, mode.args)),
        ]),
      ),
      i + k,
    );
    for (const name of Object.keys(conns)) rates[k][name].push(CALLS / secs[name]);
  }
  for (const kind of alone ? ['valid', 'invalid'] : []) {
    const per = DISPATCH_CALLS / BLOCKS;
    const secs = await interleave(
      BLOCKS,
      {
        toolspec: (b) => loops.dispatch(reqs[kind], b * per, per, kind === 'invalid'),
        ...(only ? {} : { loop: (b) => loops.loop(reqs[kind], b * per, per, kind === 'invalid') }),
      },
      i,
    );
    dispatch[kind].toolspec.push(DISPATCH_CALLS / secs.toolspec);
    if (!only) dispatch[kind].loop.push(DISPATCH_CALLS / secs.loop);
  }
}
for (const conn of Object.values(conns)) await conn.close();
if (alone) loops.check();

const k = (r) => `${(r / 1000).toFixed(1)} k/s`;
const r2 = (s) => `${s.median.toFixed(2)} (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;
console.log(`${n} tools, ${runs} runs, ${path.relative(process.cwd(), fileURLToPath(import.meta.url))}`);
for (const [i, mode] of MODES.entries()) {
  const { toolspec: t, plain, own } = rates[i];
  const line = `2025 tools/call ${mode.args}, ${mode.inflight} in flight:`;
  if (only) console.log(`${line} ${only} ${k(stats(rates[i][only]).median)}`);
  else
    console.log(
      `${line} toolspec ${k(stats(t).median)}, no validation ${k(stats(plain).median)} (with the project's handlers ${k(stats(own).median)}), toolspec / no validation ${r2(pairRatio(t, plain))} (/ with the project's handlers ${r2(pairRatio(t, own))})` +
        (before
          ? `; before ${k(stats(rates[i].before).median)}, after / before ${r2(pairRatio(t, rates[i].before))}`
          : ''),
    );
}
for (const kind of alone ? ['valid', 'invalid'] : []) {
  const d = dispatch[kind];
  const line = `dispatcher alone, ${kind}: ${k(stats(d.toolspec).median)}`;
  console.log(only ? line : `${line}, loop ${k(stats(d.loop).median)}, ratio ${r2(pairRatio(d.toolspec, d.loop))}`);
}
