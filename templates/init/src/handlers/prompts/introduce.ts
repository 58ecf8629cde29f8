import type { PromptHandler } from '../../generated/contract.js';

/** `name` is always there (the spec says required); `language` may not be. */
export const handler: PromptHandler<'introduce'> = ({ name, language }) =>
  `Introduce ${name} to me in a few sentences, and greet them in ${language ?? 'en'} (use the greet tool).`;
