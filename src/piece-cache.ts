/**
 * Pieces of work kept between runs in the project's cache folder (node_modules/.cache/toolspec/verdicts-<spec>.json),
 * each by the SHA-256 of everything it is computed from: the verdicts of the loader's schema jobs
 * (src/validate/judge.ts) and the types of each tool (src/emit/types.ts). A run that changed one tool computes that
 * tool's pieces only.
 *
 * Safe by construction, because nothing here is trusted that cannot be checked:
 * - the file names the toolspec build that wrote it (generatorFingerprint: toolspec's code, templates, schemas and
 *   the versions of the libraries that compile); another build's file is ignored whole;
 * - each entry carries the SHA-256 of its key and its verdict: an entry that does not match (a torn or edited file)
 *   is ignored, and an unreadable file is ignored whole;
 * - the key is the SHA-256 of the whole input (for a verdict: the schema, its bundled $defs, dialect, kind and
 *   extension keywords), so a hit is the result of exactly that input;
 * - the file is written to a temporary name and renamed over the old one: a reader sees a whole file, the old or the
 *   new, and two runs writing at once each leave a whole file (the last rename wins; the other run's entries are
 *   computed again next time).
 * Deleting the folder only costs time: every verdict is computed again, to the same bytes.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { cacheDir, generatorFingerprint, sha256 } from './state.js';
import type { PieceStore } from './emit/types.js';
import type { VerdictStore } from './validate/verdicts.js';
import { failpoint } from './write.js';

const FORMAT = 1;
/** A temporary file older than this is a killed writer's leftover. */
const STALE_MS = 10 * 60_000;

/** An entry on disk: the value (plain JSON) and the SHA-256 of its key and value. */
interface Entry {
  sum: string;
  value: unknown;
}

const sum = (key: string, value: unknown) =>
  createHash('sha256').update(key).update('\0').update(JSON.stringify(value)).digest('hex');

export class PieceCache implements VerdictStore, PieceStore {
  readonly file: string;
  #read: Map<string, unknown> | undefined;
  readonly #used = new Map<string, unknown>();

  constructor(specPath: string) {
    this.file = path.join(cacheDir(path.dirname(specPath)), `verdicts-${sha256(specPath).slice(0, 16)}.json`);
  }

  /** The entries of the file that can be vouched for; none when it is missing, unreadable or another build's. */
  #entries(): Map<string, unknown> {
    if (this.#read) return this.#read;
    this.#read = new Map();
    let data: unknown;
    try {
      data = JSON.parse(fs.readFileSync(this.file, 'utf8'));
    } catch {
      return this.#read;
    }
    const d = data as { format?: unknown; generator?: unknown; entries?: unknown };
    if (d?.format !== FORMAT || d.generator !== generatorFingerprint()) return this.#read;
    if (typeof d.entries !== 'object' || d.entries === null) return this.#read;
    for (const [key, e] of Object.entries(d.entries as Record<string, Partial<Entry>>)) {
      if (!/^[0-9a-f]{64}$/.test(key) || typeof e?.sum !== 'string' || e.value === undefined) continue;
      if (sum(key, e.value) !== e.sum) continue;
      this.#read.set(key, e.value);
    }
    return this.#read;
  }

  get(key: string): unknown {
    return this.#entries().get(key);
  }

  put(key: string, value: unknown): void {
    this.#used.set(key, value);
  }

  /**
   * Writes the verdicts this run used (those of earlier runs that it did not use go: the file follows the spec),
   * unless they are exactly what the file holds. A cache that cannot be written only costs time.
   */
  save(): void {
    const read = this.#entries();
    if (read.size === this.#used.size && [...this.#used.keys()].every((k) => read.has(k))) return;
    const entries: Record<string, Entry> = {};
    for (const [key, value] of [...this.#used].sort(([a], [b]) => (a < b ? -1 : 1))) {
      entries[key] = { sum: sum(key, value), value };
    }
    const text = JSON.stringify({ format: FORMAT, generator: generatorFingerprint(), entries });
    const tmp = `${this.file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      this.#removeStale();
      const fd = fs.openSync(tmp, 'w');
      try {
        const half = Math.floor(text.length / 2);
        fs.writeSync(fd, text.slice(0, half));
        failpoint('verdicts-half-written');
        fs.writeSync(fd, text.slice(half));
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, this.file);
      this.#read = new Map(this.#used);
    } catch {
      fs.rmSync(tmp, { force: true });
    }
  }

  /** Temporary files that killed writers left behind. */
  #removeStale(): void {
    const dir = path.dirname(this.file);
    const prefix = `${path.basename(this.file)}.tmp-`;
    for (const name of fs.readdirSync(dir)) {
      if (!name.startsWith(prefix)) continue;
      const abs = path.join(dir, name);
      try {
        if (Date.now() - fs.statSync(abs).mtimeMs > STALE_MS) fs.rmSync(abs, { force: true });
      } catch {
        // gone already
      }
    }
  }
}
