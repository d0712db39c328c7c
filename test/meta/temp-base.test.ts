/**
 * Where the suite keeps its temp folders (test/helpers/temp-base.ts): an explicit TMPDIR, else a writable tmpfs at
 * /dev/shm with room, else the machine's temp folder.
 */
import { describe, expect, it } from 'vitest';
import { MIN_ROOM, suiteTempBase } from '../helpers/temp-base.js';

const TMPFS = 0x01021994;
const EXT4 = 0xef53;

/** A machine whose /dev/shm has file system `type` with `room` bytes free, writable unless `readOnly`. */
function machine(opts: {
  tmpdir?: string;
  type?: number;
  room?: number;
  readOnly?: boolean;
  noShm?: boolean;
  options?: string[];
}) {
  return {
    env: opts.tmpdir === undefined ? {} : { TMPDIR: opts.tmpdir },
    shm: '/mem',
    statfs: (path: string) => {
      if (path !== '/mem' || opts.noShm) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      return { type: opts.type ?? TMPFS, bsize: 4096, bavail: Math.floor((opts.room ?? MIN_ROOM) / 4096) };
    },
    writable: (path: string) => {
      if (opts.readOnly || path !== '/mem') throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
    },
    mountOptions: (path: string) => (path === '/mem' ? (opts.options ?? ['rw', 'nosuid', 'nodev']) : []),
    fallback: () => '/disk-tmp',
  };
}

describe('the suite temp base', () => {
  it('is an explicit TMPDIR, whatever /dev/shm offers', () => {
    expect(suiteTempBase(machine({ tmpdir: '/chosen' }))).toBe('/chosen');
  });

  it('is a writable tmpfs with at least the room asked for', () => {
    expect(suiteTempBase(machine({}))).toBe('/mem');
    expect(suiteTempBase(machine({ tmpdir: '' }))).toBe('/mem');
  });

  it('is the machine temp folder when /dev/shm is missing, not a tmpfs, too small, not writable or noexec', () => {
    expect(suiteTempBase(machine({ noShm: true }))).toBe('/disk-tmp');
    expect(suiteTempBase(machine({ type: EXT4 }))).toBe('/disk-tmp');
    expect(suiteTempBase(machine({ room: MIN_ROOM - 4096 }))).toBe('/disk-tmp');
    expect(suiteTempBase(machine({ readOnly: true }))).toBe('/disk-tmp');
    expect(suiteTempBase(machine({ options: ['rw', 'nosuid', 'nodev', 'noexec'] }))).toBe('/disk-tmp');
  });
});
