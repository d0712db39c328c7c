/**
 * The MCP server keeps its SQLite connections between calls (src/store/kept-connections.ts), so a call's own close is not the
 * store's last: SQLite does not checkpoint and remove the write-ahead log after every call (a write and an fsync
 * each time). Seen from outside: the -wal file stays while the server runs, and goes when it stops.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dbOf, dispatch, readDraftJson } from '../helpers/drafts.js';
import { tempHome } from '../helpers/cli.js';
import { connect } from '../helpers/mcp.js';

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

describe('MCP: the store stays open between calls', () => {
  it('after a write the -wal file is still there (no checkpoint on every call); the write is in the draft and the row', async () => {
    const home = tempHome();
    const { id } = dispatch(home);
    expect(existsSync(`${dbOf(home)}-wal`)).toBe(false);
    const mcp = await connect(home);
    try {
      const r = await mcp.call('contract_set', { field: 'work_phase', value: 'executing', draft_id: id });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent?.mirrored).toBe(true);
      const again = await mcp.call('contract_add', {
        field: 'evidence_report.files_checked',
        value: 'src/a.ts',
        draft_id: id,
      });
      expect(again.isError).toBeFalsy();
      expect(existsSync(`${dbOf(home)}-wal`)).toBe(true);
      expect(readDraftJson(home, id).evidence_report.files_checked).toEqual(['src/a.ts']);
    } finally {
      await mcp.close();
    }
    // The server closes its connection when it stops; the last close removes the -wal file (polled: a hang is
    // caught by the test's timeout).
    while (existsSync(`${dbOf(home)}-wal`)) await sleep(20);
    expect(existsSync(`${dbOf(home)}-wal`)).toBe(false);
  }, 60_000);
});
