import type { PromptCompleter, PromptHandler } from '../../generated/contract.js';

export const handler: PromptHandler<'test_prompt_with_arguments'> = ({ arg1, arg2 }) =>
  `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`;

/** arg2 completes from arg1: the values it may take after it. */
export const complete: PromptCompleter<'test_prompt_with_arguments'> = {
  arg2: (value, { arguments: given }) =>
    [`${given.arg1 ?? 'any'}-one`, `${given.arg1 ?? 'any'}-two`].filter((v) => v.startsWith(value)),
};
