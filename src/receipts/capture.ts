/**
 * Capture of one output stream of the child: hashed and counted while it streams, checked for strict UTF-8, kept in
 * memory while it fits the inline threshold and spilled to a private temp file beyond it, so a command that prints
 * gigabytes never holds them in memory.
 */
import { createHash, type Hash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Inline threshold, compared with `≤` (evidence.md §4.2). */
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
  private spillDir: string | undefined;
  private spillFd: number | undefined;
  private spillPath: string | undefined;
  private done: CapturedStream | undefined;

  constructor(private readonly name: string) {}

  push(chunk: Buffer): void {
    if (this.done) return;
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
    if (this.spillFd !== undefined) {
      closeSync(this.spillFd);
      this.spillFd = undefined;
      result.spillPath = this.spillPath;
    } else {
      result.buffer = Buffer.concat(this.head);
      if (this.utf8) result.text = result.buffer.toString('utf8');
    }
    this.done = result;
    return result;
  }

  /** Removes the spill file (call once the bytes were stored or are no longer needed). */
  discard(): void {
    if (this.spillFd !== undefined) closeSync(this.spillFd);
    this.spillFd = undefined;
    if (this.spillDir !== undefined) rmSync(this.spillDir, { recursive: true, force: true });
    this.spillDir = undefined;
  }

  private openSpill(): void {
    this.spillDir = mkdtempSync(join(tmpdir(), 'handoff-capture-'));
    this.spillPath = join(this.spillDir, this.name);
    this.spillFd = openSync(this.spillPath, 'wx', 0o600);
    for (const b of this.head) writeAll(this.spillFd, b);
    this.head.length = 0;
  }
}

function writeAll(fd: number, chunk: Buffer): void {
  let off = 0;
  while (off < chunk.length) off += writeSync(fd, chunk, off, chunk.length - off);
}
