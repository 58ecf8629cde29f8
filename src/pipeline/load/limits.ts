/**
 * Limits on what one spec may hold. A spec is written by people, so each limit sits far above any real spec, and
 * low enough that a hostile or broken input (a generated file, a log saved as .yaml, a nesting bomb) is refused in
 * seconds, with a diagnostic, instead of exhausting memory or the stack. Measured with yaml 2.9 on Node 20: parsing
 * YAML with positions takes about 1 s and 110 MB of heap per MiB, and 2,000 realistic tools take about 0.8 MiB.
 */

/**
 * One file, checked with stat before it is read. At ~110 MB of heap per MiB, 4 MiB stays well inside Node's
 * default heap; the largest specs seen in practice are a few hundred KiB.
 */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * The spec and every file it includes, together: all of them are parsed and kept in memory at once (diagnostics
 * point into any of them). 8 MiB is ten times what 2,000 tools take, and still under a GiB of heap.
 */
export const MAX_TOTAL_BYTES = 8 * 1024 * 1024;

/**
 * Tools in one server, counted before their schemas are checked (each schema is compiled by ajv, and every tool
 * is sent to the model in tools/list). Clients and models handle a few hundred tools at most; 2,000 keeps a
 * spec that is surely a mistake from taking minutes to validate.
 */
export const MAX_TOOLS = 2000;

/**
 * Nesting of YAML collections (mappings and lists, block or flow) in one file, checked while parsing. The YAML
 * composer, ajv, the type generator and the formatter all recurse per level and run out of stack somewhere in the
 * high hundreds; real schemas nest fewer than 20 levels (each schema level is two YAML levels: properties, name).
 */
export const MAX_DEPTH = 100;

/**
 * Schema nodes of one tool schema with its $refs followed (inlined). Real schemas have a few thousand at most; a
 * chain of $defs that each point at the next twice doubles per link (24 links: 16 million), which inlining, lint,
 * diff and the type generator would all try to build.
 */
export const MAX_EXPANDED_NODES = 100_000;

/**
 * One text value (a description, a title, a default …). Models read descriptions on every tools/list: real ones are
 * a few hundred characters, the longest seen a few thousand. 100,000 is far above that and keeps a text pasted by
 * mistake (a log, a file) from costing seconds of lint, typing and formatting per MiB.
 */
export const MAX_TEXT_CHARS = 100_000;
