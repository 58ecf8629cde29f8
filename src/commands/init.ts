/**
 * `toolspec init`: a new server project from templates/init (src/init.ts), written beside what is there (never
 * over an existing file), then generated.
 */
import fs from 'node:fs';
import path from 'node:path';
import { initFiles, packageName } from '../init.js';
import { displayPath } from '../paths.js';
import { writeOutput } from '../write.js';
import { EXIT, loadForCommand, PLAIN_STYLES, type CommandResult, type Styles } from './result.js';

export interface InitInput {
  /** The project folder as the user named it. */
  dir: string;
  cwd: string;
  /** Add the files to a folder that is not empty. */
  force: boolean;
  /** The toolspec devDependency to write in package.json. */
  toolspec: string;
  style?: Styles;
}

export async function initCommand(input: InitInput): Promise<CommandResult> {
  const { dir, cwd } = input;
  const abs = path.resolve(cwd, dir);
  if (fs.existsSync(abs) && fs.readdirSync(abs).length && !input.force) {
    return {
      code: EXIT.invalid,
      stdout: '',
      stderr: `toolspec: ${dir} is not empty; pass --force to add the project files beside what is there (no existing file is overwritten)\n`,
    };
  }
  const kept: string[] = [];
  for (const f of initFiles(packageName(abs), input.toolspec)) {
    const target = path.join(abs, f.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    try {
      fs.writeFileSync(target, f.contents, { flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      kept.push(f.path);
    }
  }
  const spec = path.join(abs, 'toolspec.yaml');
  const { result, stderr, code } = await loadForCommand(
    path.relative(cwd, spec) || spec,
    cwd,
    'text',
    (input.style ?? PLAIN_STYLES).err,
  );
  if (!result.model) return { code, stdout: '', stderr };
  const { generate } = await import('../emit/generate.js');
  writeOutput(result.model.rootDir, result.model.options, await generate(result.model, result.validators!));
  const shown = displayPath(abs, cwd);
  const lines = [
    ...kept.map((f) => `kept ${f}: it exists already`),
    `created an MCP server project in ${shown || '.'}\n\nnext:\n${shown ? `  cd ${shown}\n` : ''}  npm install && npm start   # serve over stdio\n  npm test`,
  ];
  return { code: EXIT.ok, stdout: `${lines.join('\n')}\n`, stderr };
}
