/**
 * Capture of one output stream of the child: hashed and counted while it streams, checked for strict UTF-8, kept in
 * memory while it fits the inline threshold and spilled to a file beyond it, so a command that prints gigabytes never
 * holds them in memory. Spill files live under the data root, `<root>/tmp/spill-<pid>-<random>/`, never in $TMPDIR. A failure to spill (no space, unwritable, a file-size limit) never throws out of `push`:
 * the capture records it and stops, and the caller stops the child (spawn.ts).
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The spill folder of one run, created on first use inside the folder `parent()` returns (`<root>/tmp`). */
export class SpillArea {
  private dir: string | undefined;

  constructor(private readonly parent: () => string) {}

  /** The path of `name` in this run's spill folder (`spill-<pid>-<random>`), creating the folder. Throws on failure. */
  file(name: string): string {
    this.dir ??= mkdtempSync(join(this.parent(), `spill-${process.pid}-`));
    return join(this.dir, name);
  }

  /** Removes the spill folder and what it holds. Never throws. */
  discard(): void {
    if (this.dir === undefined) return;
    try {
      rmSync(this.dir, { recursive: true, force: true });
    } catch {
      // best effort: gc collects a folder left behind once its pid is gone
    }
    this.dir = undefined;
  }
}

/** Inline threshold, compared with `≤`. */
export const INLINE_MAX_BYTES = 4096;

export interface CapturedStream {
  sha256: string;
  bytes: number;
  /** The bytes decode as strict UTF-8 (a leading BOM is content). */
  utf8: boolean;
  /** All the bytes, when they fit the threshold. */
  buffer?: Buffer;
  /** A temp file holding all the bytes, when they did not fit; removed by `discard()`. */
  spillPath?: string;
  /** The inline text: set when bytes ≤ 4096 and valid UTF-8. */
  text?: string;
}

export class StreamCapture {
  private readonly hash: Hash = createHash('sha256');
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  private readonly head: Buffer[] = [];
  private bytes = 0;
  private utf8 = true;
  private spillFd: number | undefined;
  private spillPath: string | undefined;
  private done: CapturedStream | undefined;
  /** Why the capture failed (the spill could not be written); set once, after which nothing more is captured. */
  failure: string | undefined;

  constructor(
    private readonly name: string,
    private readonly area: SpillArea,
  ) {}

  /** Captures one chunk; a spill failure is recorded in `failure` instead of thrown. */
  push(chunk: Buffer): void {
    if (this.done || this.failure !== undefined) return;
    try {
      this.take(chunk);
    } catch (e) {
      this.failure = `cannot spill the captured ${this.name} to the data root: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
      this.closeSpill();
    }
  }

  private take(chunk: Buffer): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    if (this.utf8) {
      try {
        this.decoder.decode(chunk, { stream: true });
      } catch {
        this.utf8 = false;
      }
    }
    if (this.spillFd === undefined && this.bytes <= INLINE_MAX_BYTES) {
      this.head.push(chunk);
      return;
    }
    if (this.spillFd === undefined) this.openSpill();
    writeAll(this.spillFd as number, chunk);
  }

  finish(): CapturedStream {
    if (this.done) return this.done;
    if (this.utf8) {
      try {
        this.decoder.decode();
      } catch {
        this.utf8 = false;
      }
    }
    const result: CapturedStream = { sha256: this.hash.digest('hex'), bytes: this.bytes, utf8: this.utf8 };
    if (this.spillFd !== undefined || this.spillPath !== undefined) {
      this.closeSpill();
      result.spillPath = this.spillPath;
    } else {
      result.buffer = Buffer.concat(this.head);
      if (this.utf8) result.text = result.buffer.toString('utf8');
    }
    this.done = result;
    return result;
  }

  /** Closes the spill file; the spill folder itself goes with `SpillArea.discard()`. */
  discard(): void {
    this.closeSpill();
  }

  private closeSpill(): void {
    if (this.spillFd === undefined) return;
    try {
      closeSync(this.spillFd);
    } catch {
      // already unusable
    }
    this.spillFd = undefined;
  }

  private openSpill(): void {
    this.spillPath = this.area.file(this.name);
    this.spillFd = openSync(this.spillPath, 'wx', 0o600);
    for (const b of this.head) writeAll(this.spillFd, b);
    this.head.length = 0;
  }
}

function writeAll(fd: number, chunk: Buffer): void {
  let off = 0;
  while (off < chunk.length) off += writeSync(fd, chunk, off, chunk.length - off);
}
