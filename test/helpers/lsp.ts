/**
 * A tiny Language Server Protocol client for tests: JSON-RPC 2.0 over a child process's stdio with Content-Length
 * framing, as an editor speaks it. Enough to open documents, read the diagnostics the server publishes and ask for
 * completions; it answers the few requests a server sends its client (configuration, registrations, progress).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { pathToFileURL } from 'node:url';

export interface Position {
  line: number;
  character: number;
}
export interface LspDiagnostic {
  range: { start: Position; end: Position };
  message: string;
  severity?: number;
  source?: string;
}
export interface CompletionItem {
  label: string;
  kind?: number;
  documentation?: string | { kind: string; value: string };
  insertText?: string;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

/** How long any one wait may take before the test fails with what arrived so far (a bound, not a measurement). */
const WAIT_MS = 30_000;

export class LspClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private buffer = Buffer.alloc(0);
  private stderr = '';
  private readonly diagnostics = new Map<string, LspDiagnostic[][]>();
  private readonly waiters: (() => void)[] = [];
  private exited = false;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    /** The answer to workspace/configuration, section by section. */
    private readonly settings: Record<string, unknown>,
  ) {
    child.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    child.on('exit', () => {
      this.exited = true;
      for (const p of this.pending.values()) p.reject(new Error(`language server exited; stderr: ${this.stderr}`));
      this.pending.clear();
      this.wake();
    });
  }

  /**
   * Starts `node <script> --stdio` in `cwd` and completes the handshake: initialize, initialized, then the settings
   * (pulled by the server through workspace/configuration after didChangeConfiguration).
   */
  static async start(script: string, cwd: string, settings: Record<string, unknown>): Promise<LspClient> {
    const child = spawn(process.execPath, [script, '--stdio'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const client = new LspClient(child, settings);
    await client.request('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(cwd).href,
      workspaceFolders: [{ uri: pathToFileURL(cwd).href, name: 'workspace' }],
      capabilities: {
        workspace: { configuration: true, workspaceFolders: true },
        textDocument: {
          publishDiagnostics: { relatedInformation: false },
          completion: { completionItem: { snippetSupport: false, documentationFormat: ['markdown', 'plaintext'] } },
          hover: { contentFormat: ['markdown', 'plaintext'] },
        },
      },
    });
    client.notify('initialized', {});
    client.notify('workspace/didChangeConfiguration', { settings: {} });
    return client;
  }

  request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    this.send({ jsonrpc: '2.0', id, method, params });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no answer to ${method} within ${WAIT_MS} ms; stderr: ${this.stderr}`));
      }, WAIT_MS);
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
    });
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /** Opens a YAML document (its text as given, not read from disk) and returns its URI. */
  open(file: string, text: string): string {
    const uri = pathToFileURL(file).href;
    this.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
    return uri;
  }

  /**
   * The first diagnostics published for `uri` that satisfy `until` (by default the first published at all), waiting
   * for them if need be; on time-out the error shows the last ones published.
   */
  async diagnosticsFor(uri: string, until: (d: LspDiagnostic[]) => boolean = () => true): Promise<LspDiagnostic[]> {
    const deadline = Date.now() + WAIT_MS;
    for (let seen = 0; ;) {
      const list = this.diagnostics.get(uri) ?? [];
      for (; seen < list.length; seen++) if (until(list[seen]!)) return list[seen]!;
      if (this.exited) throw new Error(`language server exited; stderr: ${this.stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) {
        const last = list.length ? JSON.stringify(list[list.length - 1], null, 1) : 'none';
        throw new Error(`no matching diagnostics for ${uri} within ${WAIT_MS} ms; last published: ${last}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async completion(uri: string, position: Position): Promise<CompletionItem[]> {
    const r = (await this.request('textDocument/completion', { textDocument: { uri }, position })) as
      { items: CompletionItem[] } | CompletionItem[] | null;
    return Array.isArray(r) ? r : (r?.items ?? []);
  }

  async stop(): Promise<void> {
    if (!this.exited) {
      try {
        await this.request('shutdown', null);
        this.notify('exit', null);
      } catch {
        // it has gone already; killed below
      }
    }
    if (!this.exited) {
      const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
      await gone;
      clearTimeout(timer);
    }
  }

  private send(message: object): void {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    this.child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.child.stdin.write(body);
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end === -1) return;
      const header = this.buffer.subarray(0, end).toString('ascii');
      const m = /Content-Length: (\d+)/i.exec(header);
      if (!m) throw new Error(`bad LSP header: ${header}`);
      const length = Number(m[1]);
      if (this.buffer.length < end + 4 + length) return;
      const body = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8');
      this.buffer = this.buffer.subarray(end + 4 + length);
      this.handle(JSON.parse(body) as Message);
    }
  }

  private handle(msg: Message): void {
    if (msg.method === undefined) {
      const p = this.pending.get(msg.id as number);
      if (!p) return;
      this.pending.delete(msg.id as number);
      if (msg.error) p.reject(new Error(`${msg.error.message} (${msg.error.code})`));
      else p.resolve(msg.result);
      return;
    }
    if (msg.id !== undefined) {
      // A request from the server: answer the ones a client must, refuse the rest.
      let result: unknown = null;
      if (msg.method === 'workspace/configuration') {
        const items = (msg.params as { items: { section?: string }[] }).items;
        result = items.map((i) => this.settings[i.section ?? ''] ?? null);
      }
      this.send({ jsonrpc: '2.0', id: msg.id, result });
      return;
    }
    if (msg.method === 'textDocument/publishDiagnostics') {
      const { uri, diagnostics } = msg.params as { uri: string; diagnostics: LspDiagnostic[] };
      const list = this.diagnostics.get(uri) ?? [];
      list.push(diagnostics);
      this.diagnostics.set(uri, list);
      this.wake();
    }
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

interface Message {
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}
