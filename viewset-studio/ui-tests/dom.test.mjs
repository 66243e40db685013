// The Studio UI's pure helpers under Node's own test runner (`node --test viewset-studio/ui-tests/`, run by CI):
// what the Model Browser's "Export CSV" writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toCsv } from '../src/ui/assets/dom.js';

test('CSV export quotes as RFC 4180 and writes null as empty', () => {
  const csv = toCsv(['id', 'title', 'rating', 'tags'], [{ id: 1, title: 'a, "b"', rating: null, tags: ['x'] }]);
  assert.equal(csv, 'id,title,rating,tags\r\n1,"a, ""b""",,"[""x""]"\r\n');
});

test('CSV export neutralises text a spreadsheet would run as a formula, and leaves numbers alone', () => {
  const rows = [{ a: '=HYPERLINK("http://x")', b: '+1', c: '-2', d: '@SUM(A1)', e: '\tx', f: '\rx', g: -3, h: 'a=b' }];
  const csv = toCsv(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], rows);
  assert.equal(csv, 'a,b,c,d,e,f,g,h\r\n"\'=HYPERLINK(""http://x"")",\'+1,\'-2,\'@SUM(A1),\'\tx,"\'\rx",-3,a=b\r\n');
});
