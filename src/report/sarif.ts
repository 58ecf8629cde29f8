/**
 * SARIF 2.1.0 (OASIS), the log format code-scanning services read (GitHub code scanning, Azure DevOps, IDEs): the
 * same findings `--format github` annotates, as one run of one tool whose results name their rule, level and place.
 * https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html
 */
import type { Log, ReportingDescriptor, Result } from 'sarif';
import { packageVersion } from '../core/paths.js';
import { fullMessage, type Finding } from './findings.js';

const LEVEL = { error: 'error', warning: 'warning', notice: 'note' } as const;

/**
 * The findings of `command` (`toolspec lint`, say: the run's tool is toolspec; the command goes in its properties)
 * as a SARIF log, pretty-printed, with a final newline. `describe` gives a rule's one-line description, for the
 * rules list: lint's rule summaries.
 */
export function renderSarif(
  list: readonly Finding[],
  command: string,
  describe?: (code: string) => string | undefined,
): string {
  const codes = [...new Set(list.map((f) => f.code))];
  const rules: ReportingDescriptor[] = codes.map((id) => {
    const text = describe?.(id);
    return text === undefined ? { id } : { id, shortDescription: { text } };
  });
  const results: Result[] = list.map((f) => ({
    ruleId: f.code,
    ruleIndex: codes.indexOf(f.code),
    level: LEVEL[f.severity],
    message: { text: fullMessage(f) },
    ...(f.file !== undefined && {
      locations: [
        {
          physicalLocation: {
            // Relative to where the command ran (the repository's root in CI), as code scanning expects.
            artifactLocation: { uri: encodeURI(f.file.split('\\').join('/')), uriBaseId: '%SRCROOT%' },
            // (JSON.stringify leaves out the fields a finding does not have.)
            ...(f.line !== undefined && {
              region: { startLine: f.line, startColumn: f.column, endLine: f.endLine, endColumn: f.endColumn },
            }),
          },
        },
      ],
    }),
    ...(f.tool !== undefined && { properties: { tool: f.tool } }),
  }));
  const log: Log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'toolspec',
            version: packageVersion(),
            informationUri: 'https://www.npmjs.com/package/toolspec',
            rules,
          },
        },
        properties: { command },
        results,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
