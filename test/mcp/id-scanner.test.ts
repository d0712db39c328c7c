/** The top-level `id` of a JSON-RPC message, found from its bytes in pieces (the transport's answer to a message it will not read). */
import { describe, expect, it } from 'vitest';
import { IdScanner } from '../../src/mcp/id-scanner.js';

const scan = (text: string, pieceSize = Infinity): string | number | undefined => {
  const bytes = Buffer.from(text, 'utf8');
  const s = new IdScanner();
  const step = Number.isFinite(pieceSize) ? pieceSize : bytes.length;
  for (let i = 0; i < bytes.length; i += step) s.push(bytes.subarray(i, i + step));
  return s.id;
};

describe('IdScanner', () => {
  it.each([
    ['id first', '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}', 7],
    [
      'id last, after the params (as the SDK client writes it)',
      '{"method":"tools/call","params":{"arguments":{"value":"x"}},"jsonrpc":"2.0","id":12}',
      12,
    ],
    ['a string id', '{ "id" : "req-1" , "method":"ping"}', 'req-1'],
    [
      'an id nested in the params is not the request id',
      '{"method":"m","params":{"id":5,"x":[{"id":6}]},"jsonrpc":"2.0"}',
      undefined,
    ],
    [
      '"id" inside a string value is not a key',
      '{"method":"m","params":{"s":"\\"id\\":9,"},"note":"id","jsonrpc":"2.0"}',
      undefined,
    ],
    ['a notification has none', '{"jsonrpc":"2.0","method":"notifications/cancelled"}', undefined],
    ['escaped quotes and multibyte text before the id', '{"params":{"v":"é\\\\\\"}{ ]"},"id":3}', 3],
    ['an object is not an id', '{"id":{"a":1},"method":"m"}', undefined],
    [
      'many short strings with escapes, the id last',
      `{"params":${JSON.stringify(Array.from({ length: 200 }, (_, i) => `s${i}"\\`))},"id":"last"}`,
      'last',
    ],
  ])('%s', (_what, text, id) => {
    expect(scan(text)).toEqual(id);
    expect(scan(text, 1)).toEqual(id);
    expect(scan(text, 3)).toEqual(id);
  });
});
