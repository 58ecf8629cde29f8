/** The static parts of the generated server: files under templates/runtime, type-checked in this repository. */
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../paths.js';

/** Copied as they are; tools.ts, contract.ts, registry.ts and primitives.ts there are stand-ins for generated files. */
export const STATIC_FILES = [
  'arguments.ts',
  'context.ts',
  'dispatcher.ts',
  'input.ts',
  'server.ts',
  'stdio.ts',
  'web.ts',
  'http.ts',
  'main.ts',
  'index.ts',
  'lazy.ts',
  'primitive-types.ts',
  'prompts.ts',
  'resources.ts',
  'uri-template.ts',
] as const;

/** Copied beside examples.test.ts, only when the spec has examples (it imports vitest). */
export const EXAMPLES_RUNNER = 'contract-tests.ts';

const cache = new Map<string, string>();

export function readTemplate(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = fs.readFileSync(path.join(packageRoot, 'templates', 'runtime', name), 'utf8');
    cache.set(name, text);
  }
  return text;
}
