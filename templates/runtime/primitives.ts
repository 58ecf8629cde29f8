// Template stand-in: `toolspec generate` writes the real primitives.ts (prompts, resources, templates) in its place.
import type { Prompt, Resource, ResourceTemplateType } from '@modelcontextprotocol/server';
import type { AnyModule, PromptRule, ResourceRule } from './primitive-types.js';

export const prompts: readonly Prompt[] = [];
export const resources: readonly Resource[] = [];
export const resourceTemplates: readonly ResourceTemplateType[] = [];
export const promptRules: Readonly<Record<string, PromptRule>> = {};
export const resourceRules: readonly ResourceRule[] = [];
export const subscriptions: boolean = false;
export const promptModules: Readonly<Record<string, () => Promise<AnyModule>>> = {};
export const resourceModules: Readonly<Record<string, () => Promise<AnyModule>>> = {};
