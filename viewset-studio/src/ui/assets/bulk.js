// Model Browser's bulk writes, offered when the ViewSet has `bulk`: delete the selected records in one request
// (`DELETE P/?<lookup>__in=…`) and import a CSV or JSON file as one bulk create (`POST P/` with an array). Both go
// through the application's own routes as the chosen identity, so each is all or nothing and the server's answer
// (403, 404 naming a key, 422 naming a row and field) is what the page shows.

import { app, query } from './api.js';
import { h, errorView, labelled } from './dom.js';

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
function typesOf(schema) {
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
 * The bulk controls of the records' card: "Import file" (with `bulk.create`) and "Delete selected" (with
 * `bulk.delete`) for an identity that may write; `selected` is the set of checked keys, `reload` shows the records
 * again, `createSchema()` resolves to the create body's one-record schema.
 */
export function bulkControls(ctx, viewset, selected, reload, createSchema) {
  const bulk = viewset.bulk ?? {};
  if (!ctx.canWrite() || !(bulk.create || bulk.delete)) return null;
  const status = h('div.bulk-status', { 'aria-live': 'polite' });
  const importer = bulk.create ? importControl(viewset, status, reload, createSchema) : null;
  const remove = bulk.delete ? h('button.danger', {
    type: 'button', 'data-bulk-delete': '', disabled: selected.size === 0,
    on: { click: () => confirmDelete(viewset, selected, status, reload) },
  }, `Delete selected (${selected.size})`) : null;
  return h('div.bulk', {}, h('div.row', {}, importer, remove), status);
}

/** The "Delete selected" button under `root` told the size of `selected` (after a checkbox changed). */
export function showSelection(root, selected) {
  const button = root.querySelector('[data-bulk-delete]');
  if (!button) return;
  button.disabled = selected.size === 0;
  button.textContent = `Delete selected (${selected.size})`;
}

function importControl(viewset, status, reload, createSchema) {
  const input = h('input', { type: 'file', accept: '.csv,.json,text/csv,application/json', 'aria-label': 'Import file' });
  input.addEventListener('change', async () => {
    const file = input.files?.[0];
    if (!file) return;
    let parsed;
    try {
      parsed = recordsOf(file.name, await file.text(), await createSchema());
    } catch (e) {
      status.replaceChildren(h('div.alert', { role: 'alert' }, `${file.name} is not valid JSON or CSV: ${e.message}`));
      return;
    }
    const r = await app(`${viewset.prefix}/`, { method: 'POST', body: parsed.records });
    input.value = '';
    if (!r.ok) { status.replaceChildren(errorView(r)); return; }
    const n = Array.isArray(r.body) ? r.body.length : 1;
    await reload(`Imported ${n} record${n === 1 ? '' : 's'} from ${file.name}`
      + (parsed.ignored.length ? ` (columns not in the create body left out: ${parsed.ignored.join(', ')})` : ''));
  });
  return labelled(`Import CSV/JSON (at most ${viewset.bulk.max})`, input);
}

function confirmDelete(viewset, selected, status, reload) {
  const keys = [...selected];
  const box = h('div.note', { role: 'alertdialog', 'aria-label': 'Confirm bulk delete' },
    `Delete ${keys.length} record${keys.length === 1 ? '' : 's'} (${keys.join(', ')})? All or none. `,
    h('button.danger', { type: 'button', on: { click: async () => {
      const url = `${viewset.prefix}/${query([[`${viewset.lookup_field}__in`, keys.join(',')]])}`;
      const r = await app(url, { method: 'DELETE' });
      if (!r.ok) { status.replaceChildren(errorView(r)); return; }
      selected.clear();
      await reload(`Deleted ${r.body?.deleted ?? keys.length} record${keys.length === 1 ? '' : 's'}`);
    } } }, 'Delete'), ' ',
    h('button.plain', { type: 'button', on: { click: () => box.remove() } }, 'Cancel'));
  status.replaceChildren(box);
  box.querySelector('button').focus();
}
