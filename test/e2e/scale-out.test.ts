/**
 * Scale-out: three instances of one generated server (test/fixtures/e2e, `node main.js --http`, one shared
 * TOOLSPEC_REQUEST_STATE_KEY) behind a real load balancer, Debian's HAProxy (apt-get install -y haproxy; .ci/run
 * installs it when missing), round robin on 127.0.0.1, with the configuration README's "Deploying" section gives.
 * Driven by the SDK's real client: every 2026-07-28 call answered correctly and spread over the three; an
 * input-required round trip whose rounds land on different instances; no call lost or answered wrongly while one
 * instance stops gracefully and another is killed mid-run; and a 2025 sessionful client, which needs the balancer's
 * session affinity (shown by the same client failing through a balancer without it).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { connectFixtureClient, toolText } from '../helpers/e2e-client.js';
import { generateAndCompile, scratchCopy } from '../helpers/project.js';
import { freePort, serveProcess, type Served } from '../helpers/serve.js';

const project = scratchCopy(path.join(repoRoot, 'test/fixtures/e2e'), 'scale-out');
const STATE_KEY = 'one-request-state-key-for-every-instance!';

/** HAProxy's configuration: README's, with the test's ports, and a log line per request to see who answered. */
function haproxyConfig(port: number, instances: number[], affinity: boolean): string {
  return `global
  log stdout format raw local0
defaults
  mode http
  log global
  log-format "%s %ST %hr"
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  # A request no instance took (refused connection, or 503 while one shuts down) goes to another.
  retries 3
  option redispatch 1
  retry-on conn-failure 503
frontend mcp
  bind 127.0.0.1:${port}
  capture request header mcp-name len 64
  default_backend instances
backend instances
  balance roundrobin
${
  affinity
    ? `  # 2025 sessions live in the instance that made them: route by Mcp-Session-Id, learnt from its responses.
  stick-table type string len 64 size 100k expire 30m
  stick on req.hdr(mcp-session-id)
  stick store-response res.hdr(mcp-session-id)
`
    : ''
}${instances.map((p, i) => `  server s${i + 1} 127.0.0.1:${p}`).join('\n')}
`;
}

async function startBalancer(instances: number[], affinity: boolean): Promise<Served> {
  const port = await freePort();
  const config = path.join(project.dir, `haproxy-${port}.cfg`);
  fs.writeFileSync(config, haproxyConfig(port, instances, affinity));
  const binary = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((b) => fs.existsSync(b));
  if (!binary) throw new Error('haproxy is not installed: run `apt-get install -y haproxy` (Debian) first');
  return serveProcess(binary, ['-db', '-f', config], { cwd: project.dir, port });
}

/** Which instance answered each request for `tool` so far, from HAProxy's log (`s2 200 {confirm}`). */
function answeredBy(balancer: Served, tool: string): string[] {
  return balancer
    .output()
    .split('\n')
    .filter((l) => l.endsWith(` {${tool}}`))
    .map((l) => l.split(' ')[0]!);
}

let ports: number[];
let instances: Served[];
let balancer: Served;

beforeAll(async () => {
  generateAndCompile(project.dir);
  ports = await Promise.all([0, 1, 2].map(() => freePort()));
  instances = await Promise.all(
    ports.map((port) =>
      serveProcess(process.execPath, ['dist/generated/main.js', '--http', '--port', String(port)], {
        cwd: project.dir,
        port,
        env: { TOOLSPEC_REQUEST_STATE_KEY: STATE_KEY },
      }),
    ),
  );
  balancer = await startBalancer(ports, true);
}, 180_000);
afterAll(async () => {
  await Promise.all([balancer, ...(instances ?? [])].map((s) => s?.stop()));
  project.cleanup();
});

const text = toolText;
const connect = connectFixtureClient;

describe('three instances behind HAProxy, round robin', () => {
  it('answers every 2026-07-28 call correctly, spread over the three', async () => {
    const client = await connect(balancer.url, 'modern');
    try {
      for (let i = 0; i < 30; i++) {
        const r = await client.callTool({ name: 'add', arguments: { numbers: [i, 0.5] } });
        expect(r.structuredContent).toEqual({ sum: i + 0.5 });
      }
    } finally {
      await client.close();
    }
    const by = answeredBy(balancer, 'add');
    expect(by).toHaveLength(30);
    for (const s of ['s1', 's2', 's3']) expect(by.filter((b) => b === s).length).toBeGreaterThanOrEqual(8);
  });

  it('completes an input-required round trip whose rounds land on different instances', async () => {
    const client = await connect(balancer.url, 'modern');
    try {
      const r = await client.callTool({ name: 'confirm', arguments: { note: 'todo.md' } });
      expect(text(r)).toBe('deleted todo.md (outdated) in round 3');
    } finally {
      await client.close();
    }
    const rounds = answeredBy(balancer, 'confirm');
    expect(rounds).toHaveLength(3);
    expect(new Set(rounds).size).toBeGreaterThanOrEqual(2);
  });

  it('serves a 2025 sessionful client through the session affinity, questions mid-call included', async () => {
    const client = await connect(balancer.url, 'legacy');
    try {
      for (let i = 0; i < 9; i++)
        expect(text(await client.callTool({ name: 'echo', arguments: { text: `e${i}` } }))).toBe(`e${i}`);
      const r = await client.callTool({ name: 'confirm', arguments: { note: 'a.md' } });
      expect(text(r)).toMatch(/^deleted a\.md \(outdated\)/);
    } finally {
      await client.close();
    }
  });

  it('cannot serve that client without the affinity: its session is on one instance only', async () => {
    const plain = await startBalancer(ports, false);
    try {
      const attempt = async () => {
        const client = await connect(plain.url, 'legacy');
        try {
          for (let i = 0; i < 6; i++) await client.callTool({ name: 'echo', arguments: { text: 'x' } });
        } finally {
          await client.close();
        }
      };
      await expect(attempt()).rejects.toThrow(/Session not found|404/);
    } finally {
      await plain.stop();
    }
  });

  it('loses no call and answers none wrongly while one instance stops and another is killed', async () => {
    const clients = await Promise.all(Array.from({ length: 8 }, () => connect(balancer.url, 'modern')));
    const outcomes: ('right' | 'wrong' | 'error')[] = [];
    let next = 0;
    const TOTAL = 240;
    const worker = async (client: Client) => {
      while (next < TOTAL) {
        const i = next++;
        try {
          const r = await client.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
          outcomes.push(text(r) === `call ${i}` && !r.isError ? 'right' : 'wrong');
        } catch {
          outcomes.push('error');
        }
      }
    };
    const run = Promise.all(clients.map(worker));
    const after = async (n: number) => {
      while (outcomes.length < n) await new Promise((r) => setTimeout(r, 5));
    };
    await after(60);
    const stopping = instances[1]!.stop('SIGTERM'); // graceful: its calls in flight finish, new ones go elsewhere
    await after(120);
    await instances[2]!.stop('SIGKILL'); // a crash: its calls in flight fail, never with a wrong answer
    await run;
    await stopping;
    await Promise.all(clients.map((c) => c.close()));
    expect(outcomes).toHaveLength(TOTAL);
    expect(outcomes.filter((o) => o === 'wrong')).toEqual([]);
    // An error only for a call the stopping or killed instance had taken (in flight, or racing its keep-alive
    // connection's close): at most the 8 clients' calls in flight, and never a wrong answer.
    expect(outcomes.filter((o) => o === 'error').length).toBeLessThanOrEqual(8);
    expect(outcomes.filter((o) => o === 'right').length).toBeGreaterThanOrEqual(TOTAL - 8);
    const tail = answeredBy(balancer, 'echo').slice(-40);
    expect(new Set(tail)).toEqual(new Set(['s1']));
  }, 120_000);
});
