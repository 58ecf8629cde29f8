/**
 * Debian's HAProxy (apt-get install -y haproxy; .ci/run installs it when missing) in front of instances on
 * 127.0.0.1, round robin, with the configuration README's "Deploying" section gives, and a log line per request on
 * stdout (`s2 200 {tools/call|confirm}`: the instance that answered, the status, Mcp-Method and Mcp-Name) to show
 * who answered what.
 */
import fs from 'node:fs';
import path from 'node:path';
import { freePort, serveProcess, type Served } from './serve.js';

function config(port: number, instances: number[], affinity: boolean): string {
  const stick = affinity
    ? [
        '  # 2025 sessions live in the instance that made them: route by Mcp-Session-Id, learnt from its responses.',
        '  stick-table type string len 64 size 100k expire 30m',
        '  stick on req.hdr(mcp-session-id)',
        '  stick store-response res.hdr(mcp-session-id)',
      ]
    : [];
  return [
    'global',
    '  log stdout format raw local0',
    'defaults',
    '  mode http',
    '  log global',
    '  log-format "%s %ST %hr"',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  # A request no instance took (refused connection, or 503 while one shuts down) goes to another.',
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure 503',
    'frontend mcp',
    `  bind 127.0.0.1:${port}`,
    '  capture request header mcp-method len 32',
    '  capture request header mcp-name len 64',
    '  default_backend instances',
    'backend instances',
    '  balance roundrobin',
    ...stick,
    ...instances.map((p, i) => `  server s${i + 1} 127.0.0.1:${p}`),
    '',
  ].join('\n');
}

/** HAProxy over `instances` (ports), its config file in `dir`; `affinity`: the stick lines for 2025 sessions. */
export async function startBalancer(dir: string, instances: number[], affinity = true): Promise<Served> {
  const port = await freePort();
  const file = path.join(dir, `haproxy-${port}.cfg`);
  fs.writeFileSync(file, config(port, instances, affinity));
  const binary = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((b) => fs.existsSync(b));
  if (!binary) throw new Error('haproxy is not installed: run `apt-get install -y haproxy` (Debian) first');
  return serveProcess(binary, ['-db', '-f', file], { cwd: dir, port });
}

/** The instance (s1, s2, …) that answered each request of `method` (and `name`, when given) so far, in order. */
export function answeredBy(balancer: Served, method: string, name?: string): string[] {
  return balancer
    .output()
    .split('\n')
    .map((line) => /^(\S+) \d+ \{([^|]*)\|([^}]*)\}$/.exec(line))
    .filter((m) => m !== null && m[2] === method && (name === undefined || m[3] === name))
    .map((m) => m![1]!);
}
