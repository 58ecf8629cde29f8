import type { ResourceHandler } from '../../generated/contract.js';
import { PNG } from '../fixtures.js';

export const handler: ResourceHandler<'static-binary'> = () => ({ blob: PNG });
