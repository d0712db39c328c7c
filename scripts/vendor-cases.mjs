// node scripts/vendor-cases.mjs SOURCE: copies the validator's public case file SOURCE (a JSONL file, one case per
// line) into test/fixtures/validator-public.jsonl and prints its sha256, the value to pin as CASES_SHA256 in
// test/validator/cases-pin.test.ts (with the case count). SOURCE may also come from $HANDOFF_CASES_UPSTREAM.
// Every line is checked to be a JSON object with a name, an envelope and ok before anything is written.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const source = process.argv[2] ?? process.env.HANDOFF_CASES_UPSTREAM;
if (source === undefined || source === '') {
  console.error('usage: node scripts/vendor-cases.mjs SOURCE (the validator-public.jsonl to vendor)');
  process.exit(2);
}
const bytes = readFileSync(source);
const lines = bytes
  .toString('utf8')
  .split('\n')
  .filter((l) => l.trim() !== '');
lines.forEach((line, i) => {
  const c = JSON.parse(line);
  if (
    typeof c !== 'object' ||
    c === null ||
    typeof c.name !== 'string' ||
    !('envelope' in c) ||
    typeof c.ok !== 'boolean'
  ) {
    throw new Error(`line ${i + 1} of ${source} is not a case ({name, envelope, ok, ...})`);
  }
});
const target = join(
  resolve(dirname(fileURLToPath(import.meta.url)), '..'),
  'test',
  'fixtures',
  'validator-public.jsonl',
);
writeFileSync(`${target}.tmp`, bytes);
renameSync(`${target}.tmp`, target);
console.log(`${target}: ${lines.length} cases, sha256 ${createHash('sha256').update(bytes).digest('hex')}`);
