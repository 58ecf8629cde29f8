import type { Handler } from '../generated/contract.js';

export const handler: Handler<'test_streaming_elicitation'> = () =>
  'stream observed: result frames only, no top-level requests';
