/**
 * The MCP bundle's manifest.json (options.bundleManifest): the file is the user's, toolspec keeps two of its fields,
 * `version` (server.version) and `tools` (each tool's name and description, as tools/list sends them). Everything
 * else stays as written; the file is printed back as JSON with two-space indents. Prompts stay the user's: a
 * bundle's prompt carries its text, which the spec does not hold.
 */
import type { ServerModel } from '../pipeline/model.js';
import { isObject } from '../pipeline/schema/keywords.js';

/** manifest.json's new text, or why the text on disk cannot be one. */
export function bundleManifest(model: ServerModel, text: string): { text: string } | { why: string; hint: string } {
  const hint = 'toolspec keeps its version and tools: fix the rest by hand first';
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (e) {
    return { why: `is not valid JSON (${(e as Error).message})`, hint };
  }
  if (!isObject(manifest)) return { why: 'is not a JSON object', hint };
  if (typeof manifest['manifest_version'] !== 'string')
    return { why: 'has no "manifest_version": it is not an MCP bundle manifest', hint };
  manifest['version'] = model.server.version;
  manifest['tools'] = model.tools.map(({ definition: { name, description } }) =>
    description === undefined ? { name } : { name, description },
  );
  return { text: `${JSON.stringify(manifest, null, 2)}\n` };
}
