import type { Handler } from '../generated/contract.js';

export const handler: Handler<'test_x_mcp_header'> = ({ region }) => `region=${region ?? '<none>'}`;
