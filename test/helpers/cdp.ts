/**
 * Headless Chromium driven over the Chrome DevTools Protocol on a pipe (`--remote-debugging-pipe`: commands in on
 * fd 3, replies and events out on fd 4, each JSON message ended by a NUL byte), so no WebSocket client is needed.
 * One page, attached in flat mode: `send` talks to the page, `events` holds everything it reported.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';

export const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';

export interface CdpEvent {
  method: string;
  params: Record<string, unknown>;
}

export interface Page {
  /** A command to the page (or to the browser with `browser: true`); rejects with the protocol's error. */
  send: (method: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>>;
  /** Resolves at the page's next event of this name. */
  next: (method: string) => Promise<CdpEvent>;
  /** Every event the page sent, in order. */
  events: CdpEvent[];
  /** The value of a JavaScript expression in the page (awaited when it is a promise), or its exception as an Error. */
  evaluate: <T>(expression: string) => Promise<T>;
  close: () => Promise<void>;
}

/** Starts Chromium and opens one blank page; fails with what to install when Chromium is not there. */
export async function openPage(): Promise<Page> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: the catalog's browser test needs it (Debian: apt-get install -y chromium; .ci/run installs it), or set CHROMIUM to its path`,
    );
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'toolspec-chromium-'));
  const child: ChildProcess = spawn(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--no-default-browser-check',
      '--hide-scrollbars',
      `--user-data-dir=${profile}`,
      '--remote-debugging-pipe',
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + String(d)).slice(-4000)));
  const input = child.stdio[3] as Writable;
  const output = child.stdio[4] as Readable;
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  const waiting: { method: string; resolve: (e: CdpEvent) => void }[] = [];
  const events: CdpEvent[] = [];
  /** The page's session, once attached: events of other sessions are not the page's. */
  const session: { id?: string } = {};
  let exited: Error | undefined;
  const fail = (e: Error) => {
    exited = e;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  child.on('exit', (code, signal) =>
    fail(new Error(`Chromium exited (${signal ?? code}) before the test was done:\n${stderr}`)),
  );
  child.on('error', (e) => fail(e));
  let buffer = '';
  output.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let end: number;
    while ((end = buffer.indexOf('\0')) !== -1) {
      const message = JSON.parse(buffer.slice(0, end)) as {
        id?: number;
        result?: Record<string, unknown>;
        error?: { message: string };
        method?: string;
        params?: Record<string, unknown>;
        sessionId?: string;
      };
      buffer = buffer.slice(end + 1);
      if (message.id !== undefined) {
        const p = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) p?.reject(new Error(`CDP: ${message.error.message}`));
        else p?.resolve(message.result ?? {});
      } else if (message.method && message.sessionId === session.id) {
        const event = { method: message.method, params: message.params ?? {} };
        events.push(event);
        for (const [i, w] of waiting.entries())
          if (w.method === event.method) {
            waiting.splice(i, 1);
            w.resolve(event);
            break;
          }
      }
    }
  });
  const raw = (method: string, params: Record<string, unknown>, to?: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      if (exited) return reject(exited);
      const id = nextId++;
      pending.set(id, { resolve, reject });
      input.write(`${JSON.stringify({ id, method, params, ...(to && { sessionId: to }) })}\0`);
    });

  const { targetId } = (await raw('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
  session.id = ((await raw('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string }).sessionId;
  const send = (method: string, params: Record<string, unknown> = {}) => raw(method, params, session.id);
  return {
    send,
    events,
    next: (method) => new Promise((resolve) => waiting.push({ method, resolve })),
    evaluate: async <T>(expression: string) => {
      const r = (await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true })) as {
        result: { value?: T };
        exceptionDetails?: { text: string; exception?: { description?: string } };
      };
      if (r.exceptionDetails)
        throw new Error(`in the page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
      return r.result.value as T;
    },
    close: async () => {
      if (!exited) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        await raw('Browser.close', {}).catch(() => undefined);
        await gone;
      }
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
