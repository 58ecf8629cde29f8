import type { Handler } from '../generated/contract.js';
import { wait } from './fixtures.js';

/**
 * The suite's SSE polling scenario: the server closes the call's stream (the connection, not the stream: it has
 * sent a priming event and a retry field) and the result reaches the client when it resumes with Last-Event-ID.
 * `closeSSE` exists only on a resumable stream of a 2025-11-25 session.
 */
export const handler: Handler<'test_reconnection'> = async (_args, ctx) => {
  ctx.sdk.http?.closeSSE?.();
  await wait(200);
  return 'Reconnection test completed successfully';
};
