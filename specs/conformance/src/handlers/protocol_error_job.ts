import { setTimeout as sleep } from 'node:timers/promises';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Handler } from '../generated/contract.js';

export const handler: Handler<'protocol_error_job'> = async (_args, ctx) => {
  await sleep(100, undefined, { signal: ctx.signal });
  // A JSON-RPC error: the task ends failed, with the error.
  throw new ProtocolError(ProtocolErrorCode.InternalError, 'The job could not run: its backend is unavailable');
};
