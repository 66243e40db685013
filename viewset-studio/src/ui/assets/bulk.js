// Model Browser's bulk writes, offered when the ViewSet has `bulk`: delete the selected records in one request
// (`DELETE P/bulk?<lookup>__in=…`) and import a CSV or JSON file as one bulk create (`POST P/bulk` with an array). Both go
// through the application's own routes as the chosen identity, so each is all or nothing and the server's answer
// (403, 404 naming a key, 422 naming a row and field) is what the page shows.

import { app, query } from './api.js';
import { h, errorView, labelled } from './dom.js';
import { recordsOf } from './records.js';

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
    const r = await app(`${viewset.prefix}/bulk`, { method: 'POST', body: parsed.records });
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
      const url = `${viewset.prefix}/bulk${query([[`${viewset.lookup_field}__in`, keys.join(',')]])}`;
      const r = await app(url, { method: 'DELETE' });
      if (!r.ok) { status.replaceChildren(errorView(r)); return; }
      selected.clear();
      await reload(`Deleted ${r.body?.deleted ?? keys.length} record${keys.length === 1 ? '' : 's'}`);
    } } }, 'Delete'), ' ',
    h('button.plain', { type: 'button', on: { click: () => box.remove() } }, 'Cancel'));
  status.replaceChildren(box);
  box.querySelector('button').focus();
}
