import type { Handler } from '../generated/contract.js';

const HELLO = { en: 'Hello', fr: 'Bonjour', de: 'Hallo' } as const;

/** `args` is validated, with `language` filled in from the schema's default. */
export const handler: Handler<'greet'> = (args) => ({ greeting: `${HELLO[args.language]}, ${args.name}!` });
