/**
 * The opened descriptor is what is judged: a file swapped for a symlink to a file outside the roots between the path
 * check and the open is refused (PATH_OUTSIDE_ROOTS), and nothing of the outside file is copied.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { confineFile } from '../../src/mcp/confine.js';
import { isHandoffError } from '../../src/errors.js';
import { tempHome } from '../helpers/cli.js';

/** Private copies (of any test running now) that hold `content`. */
const copiesOf = (content: string): string[] =>
  readdirSync(tmpdir())
    .filter((n) => n.startsWith('handoff-mcp-'))
    .flatMap((d) => {
      try {
        return readdirSync(join(tmpdir(), d)).filter((f) => readFileSync(join(tmpdir(), d, f), 'utf8') === content);
      } catch {
        return [];
      }
    });

describe('confineFile', () => {
  it('a symlink swapped in after the path check is caught on the opened descriptor', () => {
    const root = realpathSync(tempHome('handoff-root-'));
    const outside = join(tempHome('handoff-outside-'), 'secret');
    const secret = `secret ${randomUUID()}\n`;
    writeFileSync(outside, secret);
    writeFileSync(join(root, 'a.log'), 'fine\n');
    const swap = (): void => {
      unlinkSync(join(root, 'a.log'));
      symlinkSync(outside, join(root, 'a.log'));
    };
    let thrown: unknown;
    try {
      confineFile('artifact_file', 'a.log', root, [root], { beforeOpen: swap });
    } catch (e) {
      thrown = e;
    }
    expect(isHandoffError(thrown) ? thrown.code : thrown).toBe('PATH_OUTSIDE_ROOTS');
    expect(copiesOf(secret)).toEqual([]);
  });

  it('without a swap the copy holds the bytes of the file named, under its name, and is removed by dispose', () => {
    const root = realpathSync(tempHome('handoff-root-'));
    writeFileSync(join(root, 'a.log'), 'fine\n');
    const copy = confineFile('artifact_file', 'a.log', root, [root]);
    expect(copy.path.endsWith('/a.log')).toBe(true);
    expect(copy.path.startsWith(root)).toBe(false);
    copy.dispose();
    expect(() => realpathSync(copy.path)).toThrow();
  });
});
