/**
 * `toolspec clients`: each MCP client's entry for this server, named after server.name, printed again at any time,
 * and written into a client's project file beside the servers already there (src/commands/clients.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from './helpers/cli.js';
import { tempProject } from './helpers/tmp.js';

const SPEC = `toolspec: 1
server: { name: notes, version: 1.0.0 }
tools:
  - name: add_note
    description: Add a note with the given text.
    inputSchema: { type: object, properties: { text: { type: string, description: The text. } }, required: [text] }
`;
const project = tempProject({ 'toolspec.yaml': SPEC });
afterAll(project.cleanup);
const main = path.join(fs.realpathSync(project.dir), 'dist/src/generated/main.js');
const clients = (...args: string[]) => runMain(['clients', ...args], project.dir);

describe('toolspec clients', () => {
  it("prints every client's entry, named after the server, starting the built entry point with node", async () => {
    const r = await clients();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const stdio = { command: 'node', args: [main] };
    const line = (label: string) => r.stdout.split('\n').find((l) => l.startsWith(label))!;
    expect(JSON.parse(line('Claude Code').split('.mcp.json: ')[1]!)).toEqual({ mcpServers: { notes: stdio } });
    expect(JSON.parse(line('Cursor').split('.cursor/mcp.json: ')[1]!)).toEqual({ mcpServers: { notes: stdio } });
    expect(JSON.parse(line('VS Code').split('.vscode/mcp.json: ')[1]!)).toEqual({
      servers: { notes: { type: 'stdio', ...stdio } },
    });
    expect(line('Claude Desktop')).toContain('claude_desktop_config.json');
    expect(r.stdout).toContain('is not built yet: npm run build makes it');
  });

  it('gives the HTTP entries with --http, and says which client cannot take one', async () => {
    const url = 'http://127.0.0.1:3000/mcp';
    const r = await clients('--http', url);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`"mcpServers":{"notes":{"type":"http","url":"${url}"}}`);
    expect(r.stdout).toContain(`"servers":{"notes":{"type":"http","url":"${url}"}}`);
    expect(r.stdout).toMatch(/^Claude Desktop +cannot reach a server over HTTP/m);
    expect((await clients('--http', 'localhost:3000')).code).toBe(2);
  });

  it("writes the entry into the client's file, keeping the servers there; refuses a file that is not JSON", async () => {
    const file = path.join(project.dir, '.vscode/mcp.json');
    const first = await clients('vscode', '--write');
    expect(first.code).toBe(0);
    // In the form that travels with the project through git, not this machine's path.
    expect(first.stdout).toContain(
      '.vscode/mcp.json: "notes" started with node ${workspaceFolder}/dist/src/generated/main.js (a path that travels',
    );
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      servers: { notes: { type: 'stdio', command: 'node', args: ['${workspaceFolder}/dist/src/generated/main.js'] } },
    });
    expect((await clients('claude-code', '--write')).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(project.dir, '.mcp.json'), 'utf8'))).toEqual({
      mcpServers: { notes: { command: 'node', args: ['dist/src/generated/main.js'] } },
    });
    fs.writeFileSync(file, JSON.stringify({ inputs: [], servers: { other: { type: 'stdio', command: 'x' } } }));
    expect((await clients('vscode', '--write', '--http', 'http://127.0.0.1:3000/mcp')).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      inputs: [],
      servers: { other: { type: 'stdio', command: 'x' }, notes: { type: 'http', url: 'http://127.0.0.1:3000/mcp' } },
    });
    fs.writeFileSync(file, '{ "servers": { ');
    const refused = await clients('vscode', '--write');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/mcp\.json is not JSON .*nothing was written/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{ "servers": { ');
  });

  it('is a usage error for an unknown client, --write without one, or a client without a project file', async () => {
    const unknown = await clients('zed');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown client "zed": one of claude-code, claude-desktop, cursor, vscode');
    expect((await clients('--write')).stderr).toContain('--write needs the client');
    expect((await clients('claude-desktop', '--write')).stderr).toContain(
      'keeps its configuration outside the project',
    );
  });
});
