import type { Handler } from '../generated/contract.js';

export const handler: Handler<'test_embedded_resource'> = () => ({
  content: [
    {
      type: 'resource',
      resource: {
        uri: 'test://embedded-resource',
        mimeType: 'text/plain',
        text: 'This is an embedded resource content.',
      },
    },
  ],
});
