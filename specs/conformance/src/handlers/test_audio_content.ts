import type { Handler } from '../generated/contract.js';
import { WAV } from './fixtures.js';

export const handler: Handler<'test_audio_content'> = () => ({
  content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }],
});
