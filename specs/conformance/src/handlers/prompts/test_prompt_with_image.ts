import type { PromptHandler } from '../../generated/contract.js';
import { PNG } from '../fixtures.js';

export const handler: PromptHandler<'test_prompt_with_image'> = () => [
  { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
  { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
];
