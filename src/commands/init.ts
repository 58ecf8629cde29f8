/**
 * `toolspec init`: a new server project from templates/init (src/init/scaffold.ts), written beside what is there (never
 * over an existing file), then generated. Says which toolspec dependency it wrote and why, and how clients start
 * the server.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  explicitDependency,
  projectRelative,
  initFiles,
  INIT_MAIN,
  packageName,
  runningToolspec,
  toolspecDependency,
} from '../init/scaffold.js';
import { displayPath } from '../core/paths.js';
import { writeOutput } from '../write/write.js';
import { CLIENTS, clientLines, projectMcpJson } from './clients.js';
import { EXIT, invalid, loadForCommand, type CommandResult, type Styles } from './result.js';

/** The options of `toolspec init` as the command line gives them (src/cli.ts), and its folder. */
export interface InitInput {
  force?: boolean;
  /** The toolspec devDependency to write in package.json; by default, one that installs here (src/init/scaffold.ts). */
  toolspec?: string;
  blank?: boolean;
  /** The project folder as the user named it. */
  dir: string;
  cwd: string;
  style: Styles;
}

/** The template's example tool, prompt and resource beyond its spec: their handlers. */
const EXAMPLE_FILES = [
  'src/handlers/greet.ts',
  'src/handlers/prompts/introduce.ts',
  'src/handlers/resources/languages.ts',
];

export async function initCommand(input: InitInput): Promise<CommandResult> {
  const { dir, cwd } = input;
  const abs = path.resolve(cwd, dir);
  if (fs.existsSync(abs) && fs.readdirSync(abs).length && !input.force) {
    return invalid(
      `toolspec: ${dir} is not empty; pass --force to add the project files beside what is there (no existing file is overwritten)\n`,
    );
  }
  const running = runningToolspec();
  const dependency = projectRelative(
    input.toolspec === undefined
      ? toolspecDependency(running, (f) => fs.existsSync(f))
      : explicitDependency(input.toolspec, cwd),
    abs,
    running.version,
  );
  const name = packageName(abs);
  const kept: string[] = [];
  /** Writes a file of the project unless it exists, which is kept. */
  const create = (file: string, contents: string) => {
    fs.mkdirSync(path.dirname(path.join(abs, file)), { recursive: true });
    try {
      fs.writeFileSync(path.join(abs, file), contents, { flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      kept.push(file);
    }
  };
  // Beside a spec of the user's own, or from a blank one, the example's handlers would describe what the spec does
  // not have: the project gets stubs for the spec's tools instead.
  const ownSpec = fs.existsSync(path.join(abs, 'toolspec.yaml'));
  const blank = Boolean(input.blank) && !ownSpec;
  // A README of the user's own has no table markers, a package.json of theirs no mcpName: the new spec then keeps
  // no table in the one and no registry entry beside the other.
  const ownReadme = fs.existsSync(path.join(abs, 'README.md'));
  const ownPackage = fs.existsSync(path.join(abs, 'package.json'));
  const files = initFiles({ name, toolspec: dependency.spec, blank }).filter(
    (f) => !((ownSpec || blank) && EXAMPLE_FILES.includes(f.path)),
  );
  const template = files.find((f) => f.path === 'toolspec.yaml')!;
  if (ownReadme) template.contents = template.contents.replace(/^options:\n {2}toolTables: \[README\.md\].*\n/m, '');
  if (ownPackage)
    template.contents = template.contents.replace(
      /^ {2}# The entry for the official MCP Registry(.*\n)+? {4}name: .*\n/m,
      '',
    );
  for (const f of files) create(f.path, f.contents);
  const spec = path.join(abs, 'toolspec.yaml');
  const { result, stderr, code } = await loadForCommand(
    { spec: path.relative(cwd, spec) || spec, cwd, style: input.style },
    'text',
    (file) => !fs.existsSync(path.join(abs, file)),
  );
  if (!result.model) return { code, stdout: '', stderr };
  // A blank project has no tools on purpose: the warning that says so would be noise here.
  const quiet = blank && result.diagnostics.every((d) => d.code === 'TS035');
  writeOutput(result.model.rootDir, result.model.options, result.output!);
  const shown = displayPath(abs, cwd);
  // Claude Code's project file, named after the spec's server (a spec of the user's own may name it otherwise than
  // the folder), with a relative path: it goes into git, and a teammate's clone starts the same server.
  const server = result.model.server.name;
  create('.mcp.json', projectMcpJson(server));
  const main = path.join(abs, ...INIT_MAIN.split('/'));
  const lines = [
    ...kept.map((f) => `kept ${f}: it exists already`),
    ...(ownSpec
      ? [`kept your toolspec.yaml: the example tool, prompt and resource (${EXAMPLE_FILES.join(', ')}) were left out`]
      : []),
    `created ${blank ? 'a blank' : 'an'} MCP server project in ${shown || '.'}`,
    `toolspec dependency: "toolspec": "${dependency.spec}" (${dependency.why})`,
    '',
    'next:',
    ...(shown ? [`  cd ${shown}`] : []),
    ...(blank
      ? ['  add your first tool to toolspec.yaml (the comment at its top shows one), then npm run generate']
      : []),
    '  npm install && npm test',
    `  npm run build      # compiles ${INIT_MAIN}, what clients start (run it again after a change)`,
    '',
    `clients start it over stdio with: node ${main}`,
    "(not npm start: npm's banner would reach stdout, the protocol's channel)",
    `.mcp.json (Claude Code): ${kept.includes('.mcp.json') ? 'yours was kept' : `written, with the relative path ${INIT_MAIN}: commit it`}`,
    ...clientLines(Object.keys(CLIENTS), server, main).map((l) => `  ${l}`),
    '(toolspec clients prints these again; toolspec clients vscode --write writes one into the project)',
  ];
  const warning = dependency.warning ? `toolspec: warning: ${dependency.warning}\n` : '';
  return { code: EXIT.ok, stdout: `${lines.join('\n')}\n`, stderr: `${quiet ? '' : stderr}${warning}` };
}
