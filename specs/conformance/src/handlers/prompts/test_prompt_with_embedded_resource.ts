import type { PromptHandler } from '../../generated/contract.js';

export const handler: PromptHandler<'test_prompt_with_embedded_resource'> = ({ resourceUri }) => [
  {
    role: 'user',
    content: {
      type: 'resource',
      resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
    },
  },
  { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
];
