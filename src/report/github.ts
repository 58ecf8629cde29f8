/**
 * GitHub Actions workflow commands (annotations): the one renderer every command's `--format github` uses.
 * https://docs.github.com/actions/reference/workflow-commands-for-github-actions#setting-an-error-message
 *
 * Escaping follows the runner's rules (actions/toolkit's command.ts): in the message, `%`, CR and LF; in a
 * property, those and `:` and `,` too. Nothing a spec contains (a key with a newline, a message with "::") can end
 * the annotation and start a command of its own.
 */

export interface Annotation {
  level: 'error' | 'warning' | 'notice';
  file?: string;
  line?: number;
  column?: number;
  title: string;
  message: string;
}

export function annotation(a: Annotation): string {
  const props = [
    a.file !== undefined && `file=${escapeProperty(a.file)}`,
    a.line !== undefined && `line=${a.line}`,
    a.column !== undefined && `col=${a.column}`,
    `title=${escapeProperty(a.title)}`,
  ].filter(Boolean);
  return `::${a.level} ${props.join(',')}::${escapeData(a.message)}`;
}

export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
