// The targets, judged from the rows of one run (medians of pair-by-pair ratios). Each line says whether
// the target holds and by how much it misses.

const pick = (rows, pred) => rows.find(pred);
const f2 = (x) => x.toFixed(2);

export function targetsTable({ generate, check, server }) {
  const out = [];
  const add = (figure, target, value, ok) => out.push(`| ${figure} | ${target} | ${value === undefined ? 'not measured' : f2(value)} | ${value === undefined ? '—' : ok ? 'holds' : '**misses**'} |`);
  const g = (scenario) => pick(generate, (r) => r.n === 500 && r.scenario === scenario)?.ratio.median;
  const cold = g('cold');
  add('generate cold, 500 tools (/ openapi-mcp-generator)', '≤ 1.0', cold, cold <= 1.0);
  const noop = g('no-op');
  add('generate no-op, 500 tools (/ openapi-mcp-generator)', '≤ 0.3', noop, noop <= 0.3);
  const warm = pick(check, (r) => r.n === 500 && r.kind === 'warm')?.ratio.median;
  add('check, 500 tools, warm cache (/ tsc --noEmit)', '≤ 0.5', warm, warm <= 0.5);
  const coldCheck = pick(check, (r) => r.n === 500 && r.kind === 'cold')?.ratio.median;
  add('check, 500 tools, no cache (/ tsc --noEmit)', '≤ 0.5', coldCheck, coldCheck <= 0.5);
  const s = (metric) => pick(server, (r) => r.n === 500 && r.metric === metric);
  const start = s('first tools/list (ms)')?.ratioMcp.median;
  add('first tools/list after process start, 500 tools (/ McpServer)', '≤ 0.5', start, start <= 0.5);
  const list = s('warm tools/list latency (ms)')?.ratioMcp.median;
  add('warm tools/list, 500 tools (/ McpServer)', '≤ 0.25', list, list <= 0.25);
  for (const r of server.filter((x) => x.n === 500 && x.table === 'calls')) {
    const want = r.args === 'valid' ? 1.1 : 1.6;
    add(`tools/call ${r.args}, ${r.inflight} in flight, 500 tools (/ McpServer)`, `≥ ${want}`, r.ratioMcp.median, r.ratioMcp.median >= want);
    add(`tools/call ${r.args}, ${r.inflight} in flight, 500 tools (/ no-validation SDK path)`, '≥ 0.95', r.ratioPlain.median, r.ratioPlain.median >= 0.95);
  }
  for (const r of server.filter((x) => x.n === 500 && x.table === 'dispatch')) {
    add(`dispatcher alone, ${r.args} arguments, 500 tools (/ hand-written loop)`, '≥ 0.8', r.ratioLoop.median, r.ratioLoop.median >= 0.8);
  }
  const rss = s('RSS after first tools/list (MiB)')?.ratioMcp.median;
  add('resident memory, 500 tools (/ McpServer)', '≤ 0.7', rss, rss <= 0.7);
  return ['| figure | target | this run (median ratio) | |', '|---|---|---|---|', ...out].join('\n');
}
