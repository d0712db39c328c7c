/**
 * Keyset pages of the lists ordered `created_at DESC, id DESC` (contract list, approval list): a page starts after the
 * last row of the previous one, so rows written meanwhile never shift a page (no offset).
 */
export interface PageKey {
  created_at: string;
  id: number | string;
}

/** The SQL condition of the rows after `key` in that order, with its two parameters named by `param`. */
export const afterKey = (key: PageKey, param: (v: unknown) => string): string => {
  const at = param(key.created_at);
  return `(created_at < ${at} OR (created_at = ${at} AND id < ${param(key.id)}))`;
};
