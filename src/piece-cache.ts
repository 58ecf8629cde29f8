/**
 * Pieces of work kept between runs in the project's cache folder (node_modules/.cache/toolspec/verdicts-<spec>.json),
 * each by the SHA-256 of everything it is computed from: the verdicts of the loader's schema jobs
 * (src/validate/judge.ts) and the types of each tool (src/emit/types.ts); and the last parse of each spec file
 * (src/load/source.ts, by its path: it holds its own text, which a run compares with the file's). A run that changed
 * one tool computes that tool's pieces only.
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
import type { KeptParse, ParseStore } from './load/source.js';
import type { VerdictStore } from './validate/verdicts.js';
import { failpoint } from './write.js';

const FORMAT = 2;
/** A temporary file older than this is a killed writer's leftover. */
const STALE_MS = 10 * 60_000;

/**
 * An entry on disk: the value as JSON text, and the SHA-256 of its key and that text. Kept as text, an entry is
 * verified by hashing a string and parsed only when a run asks for it, and one this run did not change is written
 * back as it was read.
 */
interface Entry {
  sum: string;
  json: string;
}

const sum = (key: string, json: string) => createHash('sha256').update(key).update('\0').update(json).digest('hex');

export class PieceCache implements VerdictStore, PieceStore {
  readonly file: string;
  #read: Map<string, Entry & { value?: unknown }> | undefined;
  readonly #used = new Map<string, unknown>();

  constructor(specPath: string) {
    this.file = path.join(cacheDir(path.dirname(specPath)), `verdicts-${sha256(specPath).slice(0, 16)}.json`);
  }

  /** The entries of the file that can be vouched for; none when it is missing, unreadable or another build's. */
  #entries(): Map<string, Entry & { value?: unknown }> {
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
      if (!/^[0-9a-f]{64}$/.test(key) || typeof e?.sum !== 'string' || typeof e.json !== 'string') continue;
      if (sum(key, e.json) !== e.sum) continue;
      this.#read.set(key, { sum: e.sum, json: e.json });
    }
    return this.#read;
  }

  get(key: string): unknown {
    const e = this.#entries().get(key);
    if (!e) return undefined;
    if (!('value' in e)) {
      try {
        e.value = JSON.parse(e.json);
      } catch {
        e.value = undefined; // cannot happen to a verified entry; treated as missing
      }
    }
    return e.value;
  }

  put(key: string, value: unknown): void {
    this.#used.set(key, value);
  }

  /** The parses of the spec's files (src/load/source.ts), kept here under their absolute paths. */
  parses(): ParseStore {
    const key = (absPath: string) => sha256(`parse\0${absPath}`);
    return {
      get: (absPath) => this.get(key(absPath)),
      put: (absPath, kept: KeptParse) => this.put(key(absPath), kept),
    };
  }

  /**
   * Writes the entries this run used (those of earlier runs that it did not use go: the file follows the spec),
   * unless they are exactly what the file holds. A cache that cannot be written only costs time.
   */
  save(): void {
    const read = this.#entries();
    const unchanged = (key: string, value: unknown) => {
      const e = read.get(key);
      return e !== undefined && 'value' in e && e.value === value;
    };
    if (read.size === this.#used.size && [...this.#used].every(([k, v]) => unchanged(k, v))) return;
    const entries: Record<string, Entry> = {};
    const kept = new Map<string, Entry & { value?: unknown }>();
    for (const [key, value] of [...this.#used].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const e = unchanged(key, value) ? read.get(key)! : undefined;
      const json = e?.json ?? JSON.stringify(value);
      entries[key] = { sum: e?.sum ?? sum(key, json), json };
      kept.set(key, { ...entries[key], value });
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
      this.#read = kept;
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
