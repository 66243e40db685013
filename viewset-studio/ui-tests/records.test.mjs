// The Model Browser's import (records.js) under Node's test runner: what a CSV or JSON file becomes before it is
// sent as one bulk create.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toCsv } from '../src/ui/assets/dom.js';
import { jsonField, parseCsv, recordsOf, structured } from '../src/ui/assets/records.js';

const schema = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    views: { type: 'integer' },
    rating: { type: ['number', 'null'] },
    published: { type: 'boolean' },
    slug: { oneOf: [{ type: 'string' }, { type: 'null' }] },
  },
};

test('CSV parses quotes, doubled quotes, commas and line breaks in cells, CRLF and LF, and skips blank lines', () => {
  const text = 'a,b\r\n"x, ""y""","two\nlines"\n\n1,\r\n';
  assert.deepEqual(parseCsv(text), [['a', 'b'], ['x, "y"', 'two\nlines'], ['1', '']]);
  assert.deepEqual(parseCsv('a,b'), [['a', 'b']], 'no final line break');
});

test('an export parses back to its cells', () => {
  const rows = [{ id: 1, title: 'a, "b"\nc', rating: null }];
  assert.deepEqual(parseCsv(toCsv(['id', 'title', 'rating'], rows)), [['id', 'title', 'rating'], ['1', 'a, "b"\nc', '']]);
});

test('CSV cells are typed by the create schema; columns it lacks are left out and named', () => {
  const text = 'id,title,views,rating,published,slug,created_at\n7,Hello,12,,TRUE,,2026\n8,Bye,many,2.5,false,bye,2026\n';
  const { records, ignored } = recordsOf('posts.csv', text, schema);
  assert.deepEqual(ignored, ['id', 'created_at']);
  assert.deepEqual(records, [
    { title: 'Hello', views: 12, rating: null, published: true, slug: null },
    // A number cell that is no number stays text: the server's 422 names it.
    { title: 'Bye', views: 'many', rating: 2.5, published: false, slug: 'bye' },
  ]);
});

test('an empty cell of a field that cannot be null is left out (the server applies its default)', () => {
  assert.deepEqual(recordsOf('a.csv', 'title,views\nx,\n', schema).records, [{ title: 'x' }]);
});

test('JSON is sent as it is: an array, or one object as an array of one', () => {
  assert.deepEqual(recordsOf('a.json', '[{"title": "x", "extra": 1}]', schema), { records: [{ title: 'x', extra: 1 }], ignored: [] });
  assert.deepEqual(recordsOf('upload', ' {"title": "y"}', schema).records, [{ title: 'y' }]);
  assert.throws(() => recordsOf('a.json', '[{', schema), SyntaxError);
});

test('an array or an object is edited as JSON; a scalar, even nullable, is not', () => {
  assert.equal(structured({ type: 'object', properties: { add: { type: 'array' } } }), true);
  assert.equal(structured({ type: 'array', items: { type: 'integer' } }), true);
  assert.equal(structured({ oneOf: [{ type: 'null' }, { type: 'array' }] }), true);
  assert.equal(structured({ type: 'string' }), false);
  assert.equal(structured({ oneOf: [{ type: 'integer' }, { $ref: '#/components/schemas/authors_create' }] }), false);
  assert.equal(structured({ oneOf: [{ type: 'null' }, { type: 'number' }] }), false);
  assert.equal(structured({ $ref: '#/components/schemas/x' }), false);
});

test('a JSON field: blank is left out, text is parsed, bad text throws', () => {
  assert.equal(jsonField('  '), undefined);
  assert.deepEqual(jsonField('{"add": [{"title": "t"}]}'), { add: [{ title: 't' }] });
  assert.deepEqual(jsonField('[1, 2]'), [1, 2]);
  assert.throws(() => jsonField('{add'), SyntaxError);
});
