/**
 * Finds the top-level `id` of a JSON-RPC message from its bytes, fed in pieces, without parsing or keeping the
 * message: what lets the transport answer a request it will not read (too large, not UTF-8). It tracks only nesting
 * and strings; JSON's structural characters are ASCII, which never occur inside a multi-byte UTF-8 sequence. The id
 * may come anywhere among the top-level members (the SDK's client writes it last, after the params).
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN = new Set([0x7b, 0x5b]);
const CLOSE = new Set([0x7d, 0x5d]);
/** An id is a number or a short string; anything longer is not taken. */
const MAX_ID_BYTES = 256;
const MAX_KEY_BYTES = 16;

export class IdScanner {
  /** The request's id once seen (a string or a number); undefined for a notification or a malformed message. */
  id: string | number | undefined;

  private depth = 0;
  private inString = false;
  private escaped = false;
  private expectKey = false;
  private key: number[] | undefined;
  private lastKey = '';
  private value: number[] | undefined;

  push(bytes: Uint8Array): void {
    // The next backslash at or after i (-1: none left), looked up again only once passed: linear in the piece.
    let backslash = -2;
    for (let i = 0; i < bytes.length; i++) {
      // The bulk of a large message is string content nobody keeps: jump to the next quote or backslash.
      if (this.inString && !this.escaped && this.key === undefined && this.value === undefined) {
        if (backslash !== -1 && backslash < i) backslash = bytes.indexOf(BACKSLASH, i);
        const quote = bytes.indexOf(QUOTE, i);
        const next = quote === -1 ? backslash : backslash === -1 ? quote : Math.min(quote, backslash);
        if (next === -1) return;
        i = next;
      }
      this.step(bytes[i]);
    }
  }

  private step(b: number): void {
    if (this.inString) {
      this.keep(b);
      if (this.escaped) this.escaped = false;
      else if (b === BACKSLASH) this.escaped = true;
      else if (b === QUOTE) {
        this.inString = false;
        if (this.key !== undefined) {
          this.lastKey = Buffer.from(this.key.slice(0, -1)).toString('latin1');
          this.key = undefined;
        }
      }
      return;
    }
    if (b === QUOTE) {
      this.inString = true;
      if (this.depth === 1 && this.expectKey) {
        this.expectKey = false;
        this.key = [];
      } else this.keep(b);
      return;
    }
    if (this.depth === 1 && (b === COMMA || CLOSE.has(b))) {
      this.endValue();
      this.expectKey = b === COMMA;
    } else if (this.depth === 1 && b === COLON) {
      if (this.lastKey === 'id' && this.id === undefined) this.value = [];
      return;
    } else this.keep(b);
    if (OPEN.has(b)) {
      this.depth += 1;
      if (this.depth === 1) this.expectKey = b === 0x7b;
    } else if (CLOSE.has(b)) this.depth -= 1;
  }

  private keep(b: number): void {
    if (this.key !== undefined) {
      if (this.key.length <= MAX_KEY_BYTES) this.key.push(b);
    } else if (this.value !== undefined && this.value.length <= MAX_ID_BYTES) this.value.push(b);
  }

  private endValue(): void {
    if (this.value === undefined) return;
    const raw = Buffer.from(this.value).toString('utf8').trim();
    this.value = undefined;
    this.lastKey = '';
    if (raw.length > MAX_ID_BYTES) return;
    try {
      const v: unknown = JSON.parse(raw);
      if (typeof v === 'string' || typeof v === 'number') this.id = v;
    } catch {
      // not an id JSON-RPC allows
    }
  }
}
