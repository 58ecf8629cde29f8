/** `toolspec dev`'s usage errors, in process: they end it before anything is watched, built or started. */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { runMain } from './helpers/cli.js';

describe('toolspec dev: usage', () => {
  it('refuses a --port that is not a port', async () => {
    for (const port of ['abc', '-1', '70000', '1.5']) {
      const r = await runMain(['dev', '--port', port], '.');
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`toolspec dev: --port must be a number from 0 to 65535, not ${JSON.stringify(port)}\n`);
    }
  });

  it('refuses a port in use before doing anything', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const r = await runMain(['dev', '--port', String(port)], '.');
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `toolspec dev: port ${port} on 127.0.0.1 is in use: stop what uses it, or pick another with --port (0 picks a free one)\n`,
      );
    } finally {
      server.close();
    }
  });
});
