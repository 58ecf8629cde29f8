/**
 * Diagnostics: every problem toolspec finds in user input is one of these, with a stable code, a position and
 * a hint. Codes never change meaning once released; new problems get new codes.
 */

export type Severity = 'error' | 'warning';

export interface Diagnostic extends Span {
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  hint?: string;
}

/** The registry of codes. The name is for people and docs; the code is what tools match on. */
export const CODES = {
  TS001: 'yaml-syntax',
  TS002: 'duplicate-key',
  TS003: 'alias-limit',
  TS004: 'unresolved-alias',
  TS005: 'file-unreadable',
  TS006: 'unknown-field',
  TS007: 'missing-field',
  TS008: 'wrong-type',
  TS009: 'invalid-value',
  TS010: 'unsupported-version',
  TS011: 'invalid-tool-name',
  TS012: 'duplicate-tool',
  TS013: 'identifier-collision',
  /** Retired: now the lint rule long-tool-name (`toolspec lint`). Codes are never reused. */
  TS014: 'long-tool-name',
  /** Retired: now the lint rule missing-description (`toolspec lint`). Codes are never reused. */
  TS015: 'missing-description',
  TS016: 'unsafe-path',
  TS017: 'include-cycle',
  TS018: 'duplicate-def',
  TS020: 'invalid-schema',
  TS021: 'unknown-keyword',
  TS022: 'unknown-type',
  TS023: 'root-not-object',
  TS024: 'unsupported-dialect',
  TS025: 'unresolved-ref',
  TS026: 'ref-loop',
  TS027: 'external-ref',
  TS028: 'schema-rejected',
  TS029: 'schema-strictness',
  TS030: 'example-rejected',
  TS031: 'invalid-example-accepted',
  TS032: 'unknown-format',
  TS033: 'empty-spec',
  TS034: 'invalid-default',
  TS035: 'no-tools',
  TS036: 'invalid-utf8',
  /** A file, the spec as a whole or its tool count is past a limit of src/pipeline/load/limits.ts. */
  TS037: 'input-too-large',
  /** YAML nesting (or aliases) past the depth limit of src/pipeline/load/limits.ts. */
  TS038: 'nesting-too-deep',
  /** An example's `expect` that no call can meet (its contract test could never pass). */
  TS039: 'impossible-expectation',
  /** An `x-mcp-header` that clients would reject, dropping the tool (SEP-2243). */
  TS040: 'invalid-mcp-header',
  /** A pattern whose matching can backtrack exponentially (a denial of service on the server). */
  TS041: 'unsafe-pattern',
  /** A schema whose $refs expand past the limit of src/pipeline/load/limits.ts when followed. */
  TS042: 'ref-expansion-too-large',
  /** A tool's `renamedFrom` that cannot name its former self: not a tool name, a current tool, or claimed twice. */
  TS043: 'invalid-rename',
  /** A new tool without a handler beside the handler of a vanished tool: generate asks whether it is a rename. */
  TS044: 'unconfirmed-rename',
  /** `required` names a property that the schema's `additionalProperties: false` rejects: no call can pass. */
  TS045: 'unsatisfiable-required',
  /** Two prompts, or two resources and resource templates, with one name; two resources with one URI or template. */
  TS046: 'duplicate-name',
  /** A resource template's uriTemplate that toolspec cannot parse or match (RFC 6570, the supported operators). */
  TS047: 'invalid-uri-template',
  /** A template variable described under `variables` that its uriTemplate does not have. */
  TS048: 'unknown-template-variable',
  /** An `auth` URL that tokens cannot be checked against: not https off loopback, a fragment, credentials. */
  TS049: 'invalid-auth',
  /** `scopes` on a tool, prompt or resource of a spec without `auth`: nothing would enforce them. */
  TS050: 'scopes-without-auth',
  /** A Markdown file of options.toolTables that is missing, not UTF-8, or without one pair of table markers. */
  TS051: 'tool-table-markers',
  /** server.json (spec `server.registry`) that the MCP Registry would refuse, or package.json disagreeing with it. */
  TS052: 'invalid-registry-entry',
  /** The file of options.bundleManifest: missing, not a plain UTF-8 file, not JSON, not an MCP bundle manifest. */
  TS053: 'invalid-bundle-manifest',
} as const;

export type DiagnosticCode = keyof typeof CODES;

/** A position inside a file: what the loader hands to diagnostics. */
export interface Span {
  /** Path of the file, as the user would type it (relative to the working directory when inside it). */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units like editors count. */
  column: number;
  endLine: number;
  endColumn: number;
}

export function diagnostic(
  code: DiagnosticCode,
  span: Span,
  message: string,
  hint?: string,
  severity: Severity = 'error',
): Diagnostic {
  return { code, severity, ...span, message, ...(hint !== undefined && { hint }) };
}

/** Collects diagnostics, drops exact repeats (a shared definition checked once per tool that uses it). */
export class Diagnostics {
  /** The first of each repeat, by what makes it one. */
  readonly #list = new Map<string, Diagnostic>();

  add(d: Diagnostic): void {
    const key = `${d.code}\0${d.file}\0${d.line}\0${d.column}\0${d.message}`;
    if (!this.#list.has(key)) this.#list.set(key, d);
  }

  get hasErrors(): boolean {
    return [...this.#list.values()].some((d) => d.severity === 'error');
  }

  sorted(fileOrder: readonly string[]): Diagnostic[] {
    return sortByPlace([...this.#list.values()], fileOrder, (d) => d.code);
  }
}

/**
 * Sorted in place by the order files were loaded in (then by name, for a file outside it), position, code and
 * message, so output is stable: diagnostics and lint findings alike.
 */
export function sortByPlace<T extends Span & { message: string }>(
  list: T[],
  fileOrder: readonly string[],
  code: (x: T) => string,
): T[] {
  const rank = (f: string) => {
    const i = fileOrder.indexOf(f);
    return i === -1 ? fileOrder.length : i;
  };
  return list.sort(
    (a, b) =>
      rank(a.file) - rank(b.file) ||
      a.file.localeCompare(b.file) ||
      a.line - b.line ||
      a.column - b.column ||
      code(a).localeCompare(code(b)) ||
      a.message.localeCompare(b.message),
  );
}

/** A user error that stops a command: exit code 2. */
export class UserError extends Error {
  override name = 'UserError';
}

/** What the file system says, in words, for the errors a user can fix (a folder's rights, a full disk …). */
const FILE_SYSTEM_ERRORS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EBUSY: 'it is busy (another program holds it)',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a folder',
  EMFILE: 'too many files are open',
  ENAMETOOLONG: 'the name is too long',
};

/**
 * A file system error the user can act on, as a UserError naming the path and the reason (exit 2, no stack);
 * undefined for anything else, which stays an internal error.
 */
export function fileSystemError(e: unknown, cwd = process.cwd()): UserError | undefined {
  const error = e as NodeJS.ErrnoException | undefined;
  const reason = error?.code ? FILE_SYSTEM_ERRORS[error.code] : undefined;
  if (!reason || typeof error?.path !== 'string') return undefined;
  const shown = error.path.startsWith(`${cwd}/`) ? error.path.slice(cwd.length + 1) : error.path;
  const what = error.syscall === 'open' || error.syscall === 'read' || error.syscall === 'scandir' ? 'use' : 'write';
  return new UserError(`cannot ${what} ${shown}: ${reason} (${error.code})`);
}

/** What ends a command: a user's error (exit 2) or a bug in toolspec (exit 3), in words. */
export function describeError(e: unknown, cwd?: string): { user: boolean; message: string } {
  const user = e instanceof UserError ? e : fileSystemError(e, cwd);
  if (user) return { user: true, message: user.message };
  const stack = e instanceof Error ? (e.stack ?? e.message) : String(e);
  return {
    user: false,
    message: `internal error — this is a bug in toolspec, please report it with the spec that caused it\n${stack}`,
  };
}
