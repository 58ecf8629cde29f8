/**
 * What an import reads, whatever the source: the server's identity (from its initialize result) and its tools,
 * exactly as sent. A saved file gives only the tools.
 */
import fs from 'node:fs';
import { UserError } from '../core/diagnostics.js';

export interface Listing {
  /** The initialize result's serverInfo; undefined for a file. */
  serverInfo?: Record<string, unknown>;
  instructions?: string;
  /** Whether the server declared the tools capability (true for a file). */
  declaresTools: boolean;
  /** The tools, in the server's order, as sent. */
  tools: unknown[];
  /** Tools per tools/list page, in page order (one entry when the server does not paginate). */
  pageSizes: number[];
  /** The prompts, resources and resource templates, as sent, when the server declares them (a running server only). */
  prompts?: unknown[];
  resources?: unknown[];
  resourceTemplates?: unknown[];
}

/** Files larger than this are refused: a tools/list result is a few MiB at most. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * A saved tools/list result (`{ tools, nextCursor? }`), a whole JSON-RPC response with that result, or an array of
 * tools.
 */
export function listFromFile(file: string, shown: string): Listing {
  let text: string;
  try {
    if (fs.statSync(file).size > MAX_FILE_BYTES)
      throw new UserError(`${shown} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB; it is not a tools/list result`);
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof UserError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(code === 'ENOENT' ? `cannot find ${shown}` : `cannot read ${shown} (${code ?? String(e)})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new UserError(
      `${shown} is not JSON: ${(e as Error).message}\n  hint: save the result of tools/list, e.g. the "result" of its JSON-RPC response, or an array of tools`,
    );
  }
  const record = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (record(data) && record(data['result'])) data = data['result'];
  const tools = Array.isArray(data) ? data : record(data) ? data['tools'] : undefined;
  if (!Array.isArray(tools)) {
    throw new UserError(
      `${shown} holds no tools: expected a tools/list result ({ "tools": [...] }), a JSON-RPC response with one, or an array of tools`,
    );
  }
  return { declaresTools: true, tools, pageSizes: [tools.length] };
}
