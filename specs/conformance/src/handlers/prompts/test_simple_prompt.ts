import type { PromptHandler } from '../../generated/contract.js';

export const handler: PromptHandler<'test_simple_prompt'> = () => 'This is a simple prompt for testing.';
