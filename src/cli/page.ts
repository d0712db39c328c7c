/**
 * Pages of the list verbs (contract, approval, evidence and brief list): `count` is the rows shown; `truncated` and
 * `next_cursor` are always given (one row more than the page is fetched to know); `total` only with `--total`, a
 * count the store makes apart (costly on a large store). A cursor is opaque to the user: the list's kind and, for
 * the store's lists, the last row's key (created_at, id), else the offset of an in-memory list.
 */
import * as Flags from '@oclif/core/flags';
import { jsonQuote, usage } from '../errors.js';
import { wholeNumber } from './flags.js';

type Kind = 'handoff' | 'approval' | 'evidence' | 'brief';

/** The flags every list verb takes (its `--limit` names what it lists). */
export const pageFlags = (what: string) => ({
  limit: wholeNumber('limit', 1, 1000, { helpValue: 'N', description: `At most N ${what}, 1-1000 (default 20)` }),
  cursor: Flags.string({
    helpValue: 'C',
    description: 'Continue after the previous page (its next_cursor)',
    exclusive: ['all'],
  }),
  all: Flags.boolean({ description: 'Every matching row: no limit, no cursor' }),
  total: Flags.boolean({ description: 'Also count every matching row (total); a count can be slow on a large store' }),
});

export interface PageRequest {
  /** Rows of the page (Infinity with --all). */
  limit: number;
  /** What to ask the store for: one row more than the page, to know whether it was cut. */
  fetch: number;
  all: boolean;
  total: boolean;
  cursor?: string;
}

export function pageRequest(flags: { limit?: number; cursor?: string; all?: boolean; total?: boolean }): PageRequest {
  const all = flags.all === true;
  if (all && flags.limit !== undefined) throw usage('--all and --limit cannot be used together');
  const limit = all ? Number.MAX_SAFE_INTEGER : (flags.limit ?? 20);
  return { limit, fetch: all ? limit : limit + 1, all, total: flags.total === true, cursor: flags.cursor };
}

const badCursor = (c: string): Error =>
  usage(`--cursor ${jsonQuote(c.slice(0, 80))} is not a cursor this list gave (pass next_cursor as printed)`);

function decode(kind: Kind, cursor: string): unknown[] {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw badCursor(cursor);
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor(cursor);
  }
  if (!Array.isArray(v) || v[0] !== kind) throw badCursor(cursor);
  return v.slice(1);
}

const encode = (kind: Kind, ...parts: unknown[]): string =>
  Buffer.from(JSON.stringify([kind, ...parts]), 'utf8').toString('base64url');

/** The key of the row a store page starts after, from `--cursor`; undefined on the first page. */
export function afterOf(kind: 'handoff' | 'approval', cursor: string | undefined) {
  if (cursor === undefined) return undefined;
  const [at, id] = decode(kind, cursor);
  const idOk = kind === 'handoff' ? Number.isSafeInteger(id) : typeof id === 'string' && id.length <= 200;
  if (typeof at !== 'string' || at.length > 64 || !idOk) throw badCursor(cursor);
  return { created_at: at, id: id as number | string };
}

export interface Page<T> {
  rows: T[];
  truncated: boolean;
  next_cursor: string | null;
}

/** A store page: `fetched` holds up to `fetch` rows; the extra one only says the page was cut. */
export function storePage<T extends { created_at: string; id: number | string }>(
  kind: 'handoff' | 'approval',
  req: PageRequest,
  fetched: T[],
): Page<T> {
  if (fetched.length <= req.limit) return { rows: fetched, truncated: false, next_cursor: null };
  const rows = fetched.slice(0, req.limit);
  const last = rows[rows.length - 1];
  return { rows, truncated: true, next_cursor: encode(kind, last.created_at, last.id) };
}

/** A page of a list read whole (evidence, briefs): the cursor is the offset. */
export function memoryPage<T>(kind: 'evidence' | 'brief', req: PageRequest, all: T[]): Page<T> {
  let from = 0;
  if (req.cursor !== undefined) {
    const [offset] = decode(kind, req.cursor);
    if (!Number.isSafeInteger(offset) || (offset as number) < 0) throw badCursor(req.cursor);
    from = offset as number;
  }
  const rows = all.slice(from, from + req.limit);
  const truncated = from + rows.length < all.length;
  return { rows, truncated, next_cursor: truncated ? encode(kind, from + rows.length) : null };
}

/** The page's keys of a list's --json: `count`, `truncated`, `next_cursor`, and `total` when asked for. */
export const pageJson = (page: Page<unknown>, total: number | undefined) => ({
  count: page.rows.length,
  truncated: page.truncated,
  next_cursor: page.next_cursor,
  ...(total === undefined ? {} : { total }),
});

/** The human list's last line: `showing 20 (more: --all or --cursor C)`, with --total `showing 20 of 57`. */
export function pageFooter(page: Page<unknown>, total: number | undefined): string {
  const of = total === undefined ? '' : ` of ${total}`;
  const more = page.truncated && page.next_cursor !== null ? ` (more: --all or --cursor ${page.next_cursor})` : '';
  return `showing ${page.rows.length}${of}${more}`;
}
