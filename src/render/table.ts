/** Plain-text tables for the human output of list verbs: left-aligned columns, two spaces apart, NULL as `-`. */

export type Cell = string | number | boolean | null | undefined;

export const cellText = (v: Cell): string => (v === null || v === undefined || v === '' ? '-' : String(v));

/** Cuts `text` to `max` characters (an ellipsis marks the cut) and flattens line breaks. */
export function cut(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
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
