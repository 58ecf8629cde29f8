/** What `toolspec check` reports: one finding per divergence between the spec, the generated files and the handlers. */
import type { Span } from '../core/diagnostics.js';

export type FindingKind =
  | 'stale-file'
  | 'missing-file'
  | 'extra-file'
  | 'missing-handler'
  | 'orphan-handler'
  /** A renamed tool's handler module (spec `renamedFrom`) that generate will move. */
  | 'renamed-handler'
  /** A new tool without a handler beside a vanished tool's handler: the spec must say whether it is a rename. */
  | 'unconfirmed-rename'
  | 'handler-export'
  | 'handler-any'
  | 'handler-contract';

export interface Finding extends Pick<Span, 'file' | 'line' | 'column'> {
  kind: FindingKind;
  tool?: string;
  message: string;
  /**
   * `generate`: `toolspec generate` fixes it (never by overwriting or deleting a handler). `handler`: a person must
   * change the handler. `spec`: a person must decide, in the spec (generate stops until then).
   */
  fix: 'generate' | 'handler' | 'spec';
  /** For contract findings: the type the contract wants, and the handler's. */
  expected?: string;
  actual?: string;
  /** For stale files: a unified diff from what is on disk to what generate would write. */
  diff?: string;
}

/** A finding about a file as a whole: at its first line. */
export const fileFinding = (
  kind: FindingKind,
  fix: Finding['fix'],
  file: string,
  message: string,
  tool?: string,
): Finding => ({ kind, tool, file, line: 1, column: 1, message, fix });

export const FIX_TEXT: Record<Finding['fix'], string> = {
  generate: 'run toolspec generate',
  handler: 'change the handler',
  spec: 'edit the spec',
};
