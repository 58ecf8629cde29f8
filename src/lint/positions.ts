/**
 * Positions for lint findings. The model keeps each tool's file:line:col; for anything inside a tool (a
 * description, an argument, an annotation) the tool's mapping is found by that position in the parsed file, and the
 * path below it located there.
 */
import type { Span } from '../core/diagnostics.js';
import { SourceFile, type JsonPath } from '../pipeline/load/source.js';
import type { ServerModel, SourcePosition, ToolModel } from '../pipeline/model.js';

/** The spec's lists: tools, prompts, resources and resource templates. */
type ItemList = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';
/** `key`: the span of the key rather than of its value. */
type At = { key?: boolean };

/**
 * A locator over the spec's files as loadModel returns them: the parsed files when given, else parsed again from
 * `sources` (display path → text), lazily, only for a file a finding is in. Without the files (no sources), every
 * finding points at its tool (or at the top of the spec).
 */
export function sourceLocator(
  model: ServerModel,
  sources: ReadonlyMap<string, string> = new Map(),
  parsed?: ReadonlyMap<string, SourceFile>,
) {
  const files = new Map<string, SourceFile | undefined>(parsed);
  /** Per file and list, where each item's mapping starts ("line:column") → its JSON path. */
  const indexes = new Map<string, Map<string, JsonPath>>();
  const fileOf = (name: string): SourceFile | undefined => {
    if (!files.has(name)) {
      const text = sources.get(name);
      files.set(name, text === undefined ? undefined : new SourceFile(name, text));
    }
    return files.get(name);
  };
  /** A JSON path below a tool's, prompt's, resource's or resource template's own mapping. */
  const inItem = (item: { source: SourcePosition }, list: ItemList, path: JsonPath, opts?: At): Span => {
    const file = fileOf(item.source.file);
    if (!file) return spanAt(item.source);
    const key = `${item.source.file}\0${list}`;
    let index = indexes.get(key);
    // Each item of the file's list by where its mapping starts: how the model names an item's place.
    if (!index) {
      index = new Map(file.listItems(list).map(({ index, span }) => [`${span.line}:${span.column}`, [list, index]]));
      indexes.set(key, index);
    }
    const base = index.get(`${item.source.line}:${item.source.column}`);
    return base ? file.locate([...base, ...path], opts) : spanAt(item.source);
  };
  return {
    /** A JSON path below the tool's own mapping (e.g. ["inputSchema", "properties", "q"]). */
    inTool: (tool: ToolModel, path: JsonPath, opts?: At) => inItem(tool, 'tools', path, opts),
    inItem,
    /** A JSON path from the root of the main spec file (e.g. ["options", "lint", "ignore", 0]). */
    inSpec(path: JsonPath, opts?: At): Span {
      const file = fileOf(model.specFile);
      return file ? file.locate(path, opts) : spanAt({ file: model.specFile, line: 1, column: 1 });
    },
  };
}

function spanAt({ file, line, column }: SourcePosition): Span {
  return { file, line, column, endLine: line, endColumn: column + 1 };
}
