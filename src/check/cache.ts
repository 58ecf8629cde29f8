/**
 * Which handlers were found to fit their contract, by a hash of everything that decides it: the handler module and
 * the local modules it imports (transitively), the generated contract modules, tsconfig.json, the lock file of the
 * installed packages, and toolspec itself. A handler whose hash is known clean is not read again. Kept in the local
 * cache beside the generate state (state.ts); a missing or unwritable cache only costs speed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { OutputFile } from '../emit/generate.js';
import { cacheDir, generatorFingerprint, sha256 } from '../state.js';
import type { HandlerModule } from './coverage.js';
import type { CheckSubject } from './subject.js';

/** The generated modules that handler types depend on (contract.ts imports types.ts and context.ts; stubs import dispatcher.ts). */
export const CONTRACT_MODULES: readonly string[] = [
  'contract.ts',
  'types.ts',
  'context.ts',
  'dispatcher.ts',
  'primitive-types.ts',
];
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

export class ContractCache {
  readonly #file: string;
  readonly #clean: Set<string>;
  readonly #base: string;
  readonly #keys = new Map<string, string>();
  readonly #generatedDir: string;
  /** Per file: its text and the local modules it imports (shared by every handler that imports it). */
  readonly #modules = new Map<string, { text: string; imports: string[] }>();

  constructor(specPath: string, subject: CheckSubject, files?: readonly OutputFile[]) {
    this.#file = path.join(cacheDir(subject.rootDir), `contracts-${sha256(specPath).slice(0, 16)}.json`);
    this.#generatedDir = subject.generatedDir;
    let clean: string[] = [];
    try {
      clean = (JSON.parse(fs.readFileSync(this.#file, 'utf8')) as { clean: string[] }).clean;
    } catch {
      // no cache yet
    }
    this.#clean = new Set(clean);
    const parts = [generatorFingerprint(), read(path.join(subject.rootDir, 'tsconfig.json'))];
    for (const name of CONTRACT_MODULES) {
      const abs = path.join(subject.generatedDir, name);
      const mem = files?.find((f) => path.resolve(subject.rootDir, f.path) === abs);
      parts.push(name, mem ? mem.contents : read(abs));
    }
    parts.push(read(nearest(subject.rootDir, 'package-lock.json')));
    this.#base = sha256(parts.join('\0'));
  }

  /** The handlers that must be read: those not known clean in this exact state. */
  pending(handlers: readonly HandlerModule[]): HandlerModule[] {
    return handlers.filter((h) => !this.#clean.has(this.key(h)));
  }

  key(h: HandlerModule): string {
    let k = this.#keys.get(h.abs);
    if (!k) {
      k = sha256([this.#base, h.tool, ...this.#closure(h.abs)].join('\0'));
      this.#keys.set(h.abs, k);
    }
    return k;
  }

  /** Whether the handler's module, or a local module it imports (transitively), is one of `files`. */
  reaches(h: HandlerModule, files: ReadonlySet<string>): boolean {
    if (!files.size) return false;
    const closure = this.#closure(h.abs);
    for (let i = 0; i < closure.length; i += 2) if (files.has(closure[i]!)) return true;
    return false;
  }

  /**
   * The module and every local module it imports, transitively, as path and text. The generated modules are left
   * out: the base hash covers them.
   */
  #closure(entry: string): string[] {
    const seen = new Set<string>();
    const out: string[] = [];
    const queue = [entry];
    while (queue.length) {
      const file = queue.shift()!;
      if (seen.has(file)) continue;
      seen.add(file);
      let mod = this.#modules.get(file);
      if (!mod) {
        const text = read(file);
        const imports = [...text.matchAll(IMPORT)]
          .map((m) => resolveLocal(path.dirname(file), m[1]!))
          .filter(
            (r): r is string =>
              r !== undefined &&
              !r.includes(`${path.sep}node_modules${path.sep}`) &&
              !r.startsWith(this.#generatedDir + path.sep),
          );
        mod = { text, imports };
        this.#modules.set(file, mod);
      }
      out.push(file, mod.text);
      queue.push(...mod.imports);
    }
    return out;
  }

  /** Records the handlers found clean now (and keeps only keys of the current handlers). */
  save(handlers: readonly HandlerModule[], cleanNow: readonly HandlerModule[]): void {
    const current = new Set(handlers.map((h) => this.key(h)));
    const next = [...new Set([...[...this.#clean].filter((k) => current.has(k)), ...cleanNow.map((h) => this.key(h))])];
    try {
      fs.mkdirSync(path.dirname(this.#file), { recursive: true });
      fs.writeFileSync(this.#file, JSON.stringify({ clean: next.sort() }));
    } catch {
      // a cache that cannot be written only costs speed
    }
  }
}

function resolveLocal(dir: string, spec: string): string | undefined {
  const base = path.resolve(dir, spec);
  const stem = base.replace(/\.(m|c)?js$/, '');
  for (const candidate of [
    `${stem}.ts`,
    `${stem}.tsx`,
    `${stem}.mts`,
    `${stem}.d.ts`,
    base,
    path.join(base, 'index.ts'),
  ]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

function read(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function nearest(from: string, name: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, name))) return path.join(dir, name);
    if (path.dirname(dir) === dir) return '';
  }
}
