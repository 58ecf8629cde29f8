/**
 * `toolspec clients`: the entry each MCP client needs to start (or reach) this server, printed again whenever it
 * is wanted (init prints it once), named after the spec's `server.name`; `--write` puts it into the project's own
 * configuration file of a client, beside the servers already there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../core/diagnostics.js';
import { displayPath } from '../core/paths.js';
import { INIT_MAIN } from '../init/scaffold.js';
import { isObject } from '../pipeline/schema/keywords.js';
import { writeAtomically } from '../import/write.js';
import { EXIT, invalid, loadForCommand, type CommandResult, type SpecInput } from './result.js';

export interface ClientsInput extends SpecInput {
  /** One client; all of them when absent. */
  client?: string | undefined;
  /** The server's Streamable HTTP URL: the entries reach it there instead of starting it. */
  http?: string | undefined;
  write: boolean;
}

type Entry = Record<string, unknown>;

interface ClientKind {
  label: string;
  /**
   * The project's own file of this client (relative to the spec's folder), and how it names a file of the project
   * so that it travels with the project through git: relative where the client starts project servers in the
   * project's folder, else through the client's own variable. Absent when the client has none (`note` says where).
   */
  project?: { file: string; root: string };
  note?: string;
  /** Where the file keeps its servers. */
  key: 'mcpServers' | 'servers';
  /** What a stdio entry holds besides `command` and `args`. */
  stdio?: Entry;
  /** What an HTTP entry holds besides `url`; absent when the client cannot reach a server over HTTP from its file. */
  http?: Entry;
}

export const CLIENTS: Record<string, ClientKind> = {
  'claude-code': {
    label: 'Claude Code',
    project: { file: '.mcp.json', root: '' },
    key: 'mcpServers',
    http: { type: 'http' },
  },
  'claude-desktop': {
    label: 'Claude Desktop',
    note: 'claude_desktop_config.json (Settings → Developer → Edit Config); a remote server is added in its settings instead',
    key: 'mcpServers',
  },
  cursor: {
    label: 'Cursor',
    project: { file: '.cursor/mcp.json', root: '${workspaceFolder}/' },
    key: 'mcpServers',
    http: {},
  },
  vscode: {
    label: 'VS Code',
    project: { file: '.vscode/mcp.json', root: '${workspaceFolder}/' },
    key: 'servers',
    stdio: { type: 'stdio' },
    http: { type: 'http' },
  },
};

/** The entry that reaches the server at `http`, or else starts `main` with node; undefined when the client cannot. */
const entryOf = (kind: ClientKind, main: string, http?: string): Entry | undefined =>
  http === undefined ? { ...kind.stdio, command: 'node', args: [main] } : kind.http && { ...kind.http, url: http };

export async function clientsCommand(input: ClientsInput): Promise<CommandResult> {
  const names = input.client === undefined ? Object.keys(CLIENTS) : [input.client];
  const unknown = names.find((n) => !Object.hasOwn(CLIENTS, n));
  if (unknown !== undefined)
    return usage(`unknown client ${JSON.stringify(unknown)}: one of ${Object.keys(CLIENTS).join(', ')}`);
  if (input.write && input.client === undefined)
    return usage('--write needs the client to write for, e.g. clients vscode --write');
  if (input.http !== undefined && !/^https?:\/\/[^\s/]+/.test(input.http))
    return usage(`--http ${JSON.stringify(input.http)} is not an http(s) URL, e.g. http://127.0.0.1:3000/mcp`);
  const loaded = await loadForCommand(input, 'text');
  if (!loaded.result.model) return { code: loaded.code, stdout: '', stderr: loaded.stderr };
  const { server, rootDir } = loaded.result.model;
  // The built entry point of a project laid out as init makes it: printed with this machine's path, resolved now,
  // to paste anywhere; written into a project's file in the form that travels with the project.
  const main = path.join(rootDir, ...INIT_MAIN.split('/'));

  if (input.write) {
    const kind = CLIENTS[input.client!]!;
    if (!kind.project) return usage(`${kind.label} keeps its configuration outside the project: ${kind.note}`);
    const entry = entryOf(kind, kind.project.root + INIT_MAIN, input.http);
    if (!entry) return usage(`${kind.label} cannot reach a server over HTTP from ${kind.project.file}`);
    const file = path.join(rootDir, kind.project.file);
    writeEntry(file, kind.key, server.name, entry);
    return {
      code: EXIT.ok,
      stdout: `${displayPath(file, input.cwd)}: "${server.name}" ${input.http ? `at ${input.http}` : `started with node ${kind.project.root}${INIT_MAIN} (a path that travels with the project: commit the file)`}\n`,
      stderr: loaded.stderr,
    };
  }
  const lines = clientLines(names, server.name, main, input.http);
  const built = fs.existsSync(main)
    ? ''
    : `\n(${displayPath(main, input.cwd)} is not built yet: npm run build makes it)`;
  return { code: EXIT.ok, stdout: `${lines.join('\n')}${input.http ? '' : built}\n`, stderr: loaded.stderr };
}

/** One line per client: where its configuration lives, and the entry to put there. */
export function clientLines(names: readonly string[], server: string, main: string, http?: string) {
  return names.map((n) => {
    const kind = CLIENTS[n]!;
    const entry = entryOf(kind, main, http);
    return entry
      ? `${kind.label.padEnd(15)} ${kind.project?.file ?? kind.note}: ${JSON.stringify({ [kind.key]: { [server]: entry } })}`
      : `${kind.label.padEnd(15)} cannot reach a server over HTTP from its configuration file`;
  });
}

/** The entry `toolspec clients claude-code --write` puts in a project's .mcp.json: init writes it too. */
export function projectMcpJson(server: string): string {
  const kind = CLIENTS['claude-code']!;
  return `${JSON.stringify({ [kind.key]: { [server]: entryOf(kind, kind.project!.root + INIT_MAIN) } }, null, 2)}\n`;
}

/**
 * Sets one server in a client's JSON file, keeping everything else in it; written whole beside it, then renamed,
 * so a failure never leaves half a file. A file that is not a JSON object is refused, never replaced.
 */
function writeEntry(file: string, key: string, name: string, entry: Entry): void {
  let data: Record<string, unknown> = {};
  if (fs.existsSync(file)) {
    const text = fs.readFileSync(file, 'utf8');
    try {
      data = JSON.parse(text.replace(/^\uFEFF/, '')) as Record<string, unknown>;
    } catch (e) {
      throw new UserError(`${file} is not JSON (${(e as Error).message}); fix it or move it, nothing was written`);
    }
    if (!isObject(data)) throw new UserError(`${file} does not hold a JSON object; nothing was written`);
  }
  const servers = data[key];
  if (servers !== undefined && !isObject(servers))
    throw new UserError(`"${key}" in ${file} is not an object; nothing was written`);
  data[key] = { ...servers, [name]: entry };
  writeAtomically(file, file, `${JSON.stringify(data, null, 2)}\n`, true);
}

const usage = (message: string) => invalid(`toolspec: ${message}\n`);
