/**
 * Plain-text tables and `key: value` listings for the human output of the read verbs: left-aligned columns, two
 * spaces apart, NULL as `-`. Every cell is escaped, so text holding a tab, a line break or a
 * terminal escape can never break a row into several lines or repaint the terminal.
 */

export type Cell = string | number | boolean | null | undefined;

const NAMED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const uEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Backslash, tab, newline and carriage return as `\\`, `\t`, `\n`, `\r`; every other control character (C0, DEL,
 * C1) and the Unicode line and paragraph separators as `\u00XX`-style escapes (ESC is `\u001b`).
 */
export const escapeCell = (text: string): string =>
  // eslint-disable-next-line no-control-regex -- matching control characters is the point of this function
  text.replace(/[\\\t\n\r\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => NAMED[c] ?? uEscape(c));

/** JSON text of a value for a listing: JSON escapes C0 itself; DEL, C1 and the separators are escaped here too. */
const jsonCell = (v: unknown): string => JSON.stringify(v).replace(/[\u007f-\u009f\u2028\u2029]/g, uEscape);

export const cellText = (v: Cell): string => (v === null || v === undefined || v === '' ? '-' : escapeCell(String(v)));

/** Cuts `text` to `max` characters (an ellipsis marks the cut); the table escapes it afterwards. */
export function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

export function renderTable(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const texts = rows.map((r) => r.map(cellText));
  const widths = headers.map((h, i) => Math.max(h.length, ...texts.map((r) => r[i]?.length ?? 0)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(headers), ...texts.map(line)].join('\n');
}

/**
 * One `key: value` line per field (evidence show, receipt show): NULL as `-`, strings escaped, other values as JSON;
 * `quoted(key)` picks string fields shown as JSON strings instead (stored outputs).
 */
export function renderFields(
  obj: Record<string, unknown>,
  quoted: (key: string) => boolean = () => false,
  verbatim: Readonly<Record<string, string>> = {},
): string {
  const value = (k: string, v: unknown): string => {
    // A value its caller made safe to print as is (one line, no control characters), such as a copyable command.
    if (Object.hasOwn(verbatim, k)) return verbatim[k];
    if (v === null || v === undefined) return '-';
    return typeof v === 'string' && !quoted(k) ? escapeCell(v) : jsonCell(v);
  };
  return Object.entries(obj)
    .map(([k, v]) => `${k}: ${value(k, v)}`)
    .join('\n');
}
