import type { Handler } from '../generated/contract.js';
import { PNG } from './fixtures.js';

export const handler: Handler<'test_image_content'> = () => ({
  content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
});
