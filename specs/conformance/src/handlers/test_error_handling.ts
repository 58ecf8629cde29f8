import type { Handler } from '../generated/contract.js';
import { ToolError } from '../generated/dispatcher.js';

export const handler: Handler<'test_error_handling'> = () => {
  // A ToolError's message reaches the client verbatim, as an error result.
  throw new ToolError('This tool intentionally returns an error for testing');
};
