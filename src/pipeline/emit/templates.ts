/** The static parts of the generated server: the files under templates/runtime, type-checked in this repository. */

/** Copied as they are; tools.ts, contract.ts, registry.ts and primitives.ts there are stand-ins for generated files. */
export const STATIC_FILES = `arguments.ts context.ts dispatcher.ts handler-types.ts input.ts server.ts stdio.ts web.ts
  fetch.ts http.ts main.ts index.ts lazy.ts primitive-types.ts prompts.ts resources.ts uri-template.ts access.ts tasks.ts
  redis.ts typed-client.ts`.split(/\s+/);

/** Copied beside examples.test.ts, only when the spec has examples (it imports vitest). */
export const EXAMPLES_RUNNER = 'contract-tests.ts';

/** Copied only when the spec has `auth`: it imports the JOSE library (`jose`), which the project then needs. */
export const AUTH_VERIFIER = 'auth.ts';
