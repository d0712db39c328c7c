/**
 * The output of a command `evidence_run` ran, kept for the tool result: the last TAIL_BYTES of each stream (the
 * receipt records the whole output's sha256 and size; the agent needs the end, where test runners summarize).
 */
const TAIL_BYTES = 8192;

class StreamTail {
  private chunks: Buffer[] = [];
  private kept = 0;
  total = 0;

  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.chunks.push(chunk);
    this.kept += chunk.length;
    while (this.chunks.length > 1 && this.kept - this.chunks[0].length >= TAIL_BYTES)
      this.kept -= this.chunks.shift()!.length;
  }

  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - TAIL_BYTES)).toString('utf8');
  }
}

export class OutputTail {
  private readonly out = new StreamTail();
  private readonly err = new StreamTail();
  readonly stdout = (chunk: Buffer): void => this.out.push(chunk);
  readonly stderr = (chunk: Buffer): void => this.err.push(chunk);

  /** One text block per stream that wrote anything, headed by its name and how much of it is shown. */
  render(): string[] {
    return (
      [
        ['stdout', this.out],
        ['stderr', this.err],
      ] as const
    )
      .filter(([, s]) => s.total > 0)
      .map(([name, s]) => {
        const shown = Math.min(s.total, TAIL_BYTES);
        const head = shown === s.total ? `${name} (${s.total} bytes):` : `${name} (last ${shown} of ${s.total} bytes):`;
        return `${head}\n${s.text()}`;
      });
  }
}
