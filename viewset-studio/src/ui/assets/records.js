// Records out of an imported file, for the Model Browser's bulk import (bulk.js): CSV parsed as RFC 4180 and typed
// by the create body's JSON Schema, or JSON as it is. Pure functions (no DOM), tested under Node
// (viewset-studio/ui-tests/records.test.mjs).

/** Rows of a CSV text (RFC 4180: quoted cells with doubled quotes, CRLF or LF line ends); blank lines skipped. */
export function parseCsv(text) {
  const rows = [];
  let row = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i += 1; } else if (c === '"') quoted = false; else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(cell); cell = ''; } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      row.push(cell); cell = '';
      if (row.some((v) => v !== '')) rows.push(row);
      row = [];
    } else cell += c;
  }
  row.push(cell);
  if (row.some((v) => v !== '')) rows.push(row);
  return rows;
}

/** Types of a JSON Schema property: ['integer'], ['number', 'null'], ... */
export function typesOf(schema) {
  if (!schema) return [];
  if (schema.type) return [].concat(schema.type);
  return (schema.oneOf || schema.anyOf || []).flatMap(typesOf);
}

/** A CSV cell as the create body's field wants it; a cell that is no number stays text (the server's 422 says so). */
function typed(cell, types) {
  if (cell === '') return types.includes('null') ? null : undefined;
  if ((types.includes('integer') || types.includes('number')) && cell.trim() !== '' && !Number.isNaN(Number(cell))) return Number(cell);
  if (types.includes('boolean') && /^(true|false)$/i.test(cell)) return cell.toLowerCase() === 'true';
  return cell;
}

/**
 * The records of an imported file and the columns left out: a JSON array (or one object) as it is; a CSV's first
 * row names the fields, its cells typed by the create body's `schema`. Columns the create body does not have (the
 * `id` and read-only fields of an export) are left out and named, so an export imports again.
 */
export function recordsOf(name, text, schema) {
  const properties = schema?.properties ?? {};
  if (/\.json$/i.test(name) || /^\s*[[{]/.test(text)) {
    const parsed = JSON.parse(text);
    return { records: Array.isArray(parsed) ? parsed : [parsed], ignored: [] };
  }
  const [header = [], ...rows] = parseCsv(text);
  const ignored = header.filter((column) => !(column in properties));
  const records = rows.map((cells) => {
    const record = {};
    header.forEach((column, i) => {
      if (!(column in properties)) return;
      const value = typed(cells[i] ?? '', typesOf(properties[column]));
      if (value !== undefined) record[column] = value;
    });
    return record;
  });
  return { records, ignored };
}

/**
 * Whether a body property is written as JSON rather than as one value: an array or an object (a to-many writable
 * relation such as `{"add": [...]}`, a list of keys), never a scalar.
 */
export function structured(schema) {
  const types = typesOf(schema).filter((t) => t !== 'null');
  return types.length > 0 && types.every((t) => t === 'array' || t === 'object');
}

/**
 * The value of a JSON field's text in an edit form: `undefined` when it is blank (left out of the body, so a PATCH
 * does not touch it), else the parsed JSON. Throws a SyntaxError on text that is not JSON.
 */
export function jsonField(text) {
  return text.trim() === '' ? undefined : JSON.parse(text);
}
