// Template stand-in: `toolspec generate` writes the real contract.ts (the spec's tools, prompts and resources) here.
export type * from './handler-types.js';

export interface ToolTypes {
  example: { arguments: { text: string }; input: { text: string } };
}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a spec without prompts
export interface PromptTypes {}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a spec without resources
export interface ResourceTypes {}
