import type { Handler } from '../generated/contract.js';

export const handler: Handler<'test_simple_text'> = () => 'This is a simple text response for testing.';
