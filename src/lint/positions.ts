/**
 * Positions for lint findings. The model keeps each tool's file:line:col; for anything inside a tool (a
 * description, an argument, an annotation) the tool's mapping is found by that position in the parsed file, and the
 * path below it located there.
 */
import { isMap, isSeq } from 'yaml';
import type { Span } from '../core/diagnostics.js';
import { SourceFile, type JsonPath } from '../pipeline/load/source.js';
import type { ServerModel, ToolModel } from '../pipeline/model.js';
import type { ItemList, Locator } from './types.js';

/**
 * A locator over the spec's files as loadModel returns them: the parsed files when given, else parsed again from
 * `sources` (display path → text), lazily, only for a file a finding is in.
 */
export function sourceLocator(
  model: ServerModel,
  sources: ReadonlyMap<string, string>,
  parsed?: ReadonlyMap<string, SourceFile>,
): Locator {
  const files = new Map<string, SourceFile | undefined>(parsed);
  /** Per file, where each tool's mapping starts ("line:column") → its JSON path. */
  const toolIndex = new Map<SourceFile, Map<string, JsonPath>>();
  const fileOf = (name: string): SourceFile | undefined => {
    if (!files.has(name)) {
      const text = sources.get(name);
      files.set(name, text === undefined ? undefined : new SourceFile(name, text));
    }
    return files.get(name);
  };
  const toolPath = (tool: ToolModel, file: SourceFile): JsonPath | undefined => {
    let index = toolIndex.get(file);
    if (!index) toolIndex.set(file, (index = indexTools(file)));
    return index.get(`${tool.source.line}:${tool.source.column}`);
  };
  const itemIndex = new Map<string, Map<string, JsonPath>>();
  return {
    inTool(tool, path, opts) {
      const file = fileOf(tool.source.file);
      const base = file && toolPath(tool, file);
      return file && base ? file.locate([...base, ...path], opts) : toolSpan(tool);
    },
    inItem(item, list, path, opts) {
      const file = fileOf(item.source.file);
      if (!file) return toolSpan(item);
      const key = `${item.source.file}\0${list}`;
      let index = itemIndex.get(key);
      if (!index) itemIndex.set(key, (index = indexTools(file, list)));
      const base = index.get(`${item.source.line}:${item.source.column}`);
      return base ? file.locate([...base, ...path], opts) : toolSpan(item);
    },
    inSpec(path, opts) {
      const file = fileOf(model.specFile);
      return file ? file.locate(path, opts) : { file: model.specFile, line: 1, column: 1, endLine: 1, endColumn: 2 };
    },
  };
}

/** A locator without the files: every finding points at its tool (or at the top of the spec). */
export function toolLocator(model: ServerModel): Locator {
  return {
    inTool: (tool) => toolSpan(tool),
    inItem: (item) => toolSpan(item),
    inSpec: () => ({ file: model.specFile, line: 1, column: 1, endLine: 1, endColumn: 2 }),
  };
}

function toolSpan(tool: { source: ToolModel['source'] }): Span {
  const { file, line, column } = tool.source;
  return { file, line, column, endLine: line, endColumn: column + 1 };
}

/**
 * The JSON path of each item of the file's `tools` (or another list), by where its mapping starts: how the model
 * names an item's place.
 */
function indexTools(file: SourceFile, list: 'tools' | ItemList = 'tools'): Map<string, JsonPath> {
  const index = new Map<string, JsonPath>();
  const root = file.document.contents;
  const tools = isMap(root) ? root.get(list, true) : undefined;
  if (!isSeq(tools)) return index;
  tools.items.forEach((item, i) => {
    if (!isMap(item) || !item.range) return;
    const at = file.spanOfNode(item);
    index.set(`${at.line}:${at.column}`, [list, i]);
  });
  return index;
}
