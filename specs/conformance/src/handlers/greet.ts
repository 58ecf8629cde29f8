import type { Handler } from '../generated/contract.js';

export const handler: Handler<'greet'> = ({ name }) => `Hello, ${name ?? 'World'}!`;
