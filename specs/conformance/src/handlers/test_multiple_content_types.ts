import type { Handler } from '../generated/contract.js';
import { PNG } from './fixtures.js';

export const handler: Handler<'test_multiple_content_types'> = () => ({
  content: [
    { type: 'text', text: 'Multiple content types test:' },
    { type: 'image', data: PNG, mimeType: 'image/png' },
    {
      type: 'resource',
      resource: {
        uri: 'test://mixed-content-resource',
        mimeType: 'application/json',
        text: JSON.stringify({ test: 'data', value: 123 }),
      },
    },
  ],
});
