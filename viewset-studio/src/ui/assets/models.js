// Model Browser: every model with its fields, keys and relations; its records read through the application's own
// routes as the chosen identity (so permissions, row policies and hidden fields apply); filters from the
// allowlists, search, sorting, paging, record detail with relations both ways, create/edit/delete, export; with
// `bulk`, import a file and delete a selection (bulk.js); with `aggregates(...)`, a chart of an aggregate over the
// rows the filters select (aggregates.js).

import { app, query } from './api.js';
import { h, mount, table, show, errorView, download, toCsv, labelled, kv } from './dom.js';
import { filterParams, FilterBuilder } from './query.js';
import { bulkControls, showSelection } from './bulk.js';
import { chartPanel } from './aggregates.js';
import { jsonField, structured, typesOf } from './records.js';

let view = null;
let openapi = null;

/** Table and column names out of the relation's descriptions (`DynIden("posts")`). */
function names(text) {
  return [...String(text).matchAll(/DynIden\("([^"]+)"\)/g)].map((m) => m[1]);
}

function relationsOf(model) {
  return (model.relations || []).map((r) => ({
    name: r.name, type: r.type,
    fromTable: names(r.from_table)[0], toTable: names(r.to_table)[0],
    fromColumn: names(r.from_columns)[0], toColumn: names(r.to_columns)[0],
  }));
}

async function schemaOf(path, method) {
  if (!openapi) {
    const r = await app('/openapi.json');
    openapi = r.ok ? r.body : { paths: {} };
  }
  const schema = openapi.paths?.[path]?.[method]?.requestBody?.content?.['application/json']?.schema ?? null;
  // A body documented as `oneOf` [the record, an array of records] (an upsert's): the form writes one record.
  return schema?.oneOf ? schema.oneOf[0] : schema;
}

export async function render(root, ctx, state) {
  const models = ctx.context.models;
  let model = (state?.table && ctx.modelOfTable(state.table)) || view?.model || models[0];
  if (!model) { mount(root, h('p.muted', {}, 'No model is registered with Studio.')); return; }
  const fresh = !view || view.model !== model || state;
  if (fresh) view = newView(ctx, model, state);
  const schemaBox = h('section.card');
  const records = h('section.card', { 'aria-label': 'Records' });
  const detail = h('section.card', { 'aria-label': 'Record', hidden: true });
  const list = h('ul.list', { 'aria-label': 'Models' }, models.map((m) => h('li', {}, h('button', {
    type: 'button', 'aria-pressed': String(m === model),
    on: { click: () => { view = newView(ctx, m, null); render(root, ctx, null); } },
  }, `${m.name} `, h('span.muted', {}, m.table_name)))));
  const chart = view.viewset?.aggregates ? chartPanel(view.viewset, () => ({ filters: view.filters, search: view.search })) : null;
  view.chart = chart;
  mount(root, h('div.cols', {}, h('div', {}, h('section.card', {}, h('h3', {}, 'Models'), list), schemaBox),
    h('div', {}, records, chart?.element, detail)));
  renderSchema(schemaBox, ctx, model);
  view.records = records;
  view.detail = detail;
  await load(ctx);
  if (view.pk !== undefined && view.pk !== null) await showRecord(ctx, view.pk);
}

function newView(ctx, model, state) {
  const viewset = ctx.viewsetOf(model);
  return {
    model, viewset, filters: state?.filters ?? [], search: '', sort: null,
    limit: viewset?.default_limit ?? 20, offset: 0, page: null, pk: state?.pk, response: null, editing: null,
    selected: new Set(), notice: null,
  };
}

function renderSchema(box, ctx, model) {
  const viewset = ctx.viewsetOf(model);
  mount(box, h('h3', {}, `${model.name} fields`), table(
    [{ key: 'name', label: 'field' }, { key: 'type', label: 'type' }, { key: 'flags', label: 'keys' }],
    model.fields.map((f) => ({
      name: f.name, type: f.type + (f.nullable ? '?' : ''),
      flags: [f.primary_key && 'primary', f.unique && 'unique'].filter(Boolean).join(', ') || '',
    }))),
  h('h3', {}, 'Relations'),
  relationsOf(model).length ? h('ul', {}, relationsOf(model).map((r) => h('li', {},
    `${r.name}: ${r.type} ${r.fromTable}.${r.fromColumn} → ${r.toTable}.${r.toColumn}`))) : h('p.muted', {}, 'None.'),
  viewset ? h('p.muted', {}, `Served by ${viewset.name} at ${viewset.prefix}/`) : h('p.alert', {}, 'No ViewSet serves this model: its records cannot be read through the API.'));
}

function listUrl() {
  const { viewset, filters, search, sort, limit, offset } = view;
  const pairs = filters.map((f) => [f.param, f.value]);
  pairs.push(['search', search]);
  if (sort) pairs.push(['ordering', `${sort.desc ? '-' : ''}${sort.key}`]);
  pairs.push(['limit', limit], ['offset', offset || '']);
  return `${viewset.prefix}/${query(pairs)}`;
}

async function load(ctx, notice = null) {
  const { viewset, records } = view;
  view.notice = notice;
  if (!viewset) { mount(records, h('p.muted', {}, 'No ViewSet serves this model.')); return; }
  const url = view.page || listUrl();
  const response = await app(url);
  view.response = response;
  const rows = response.ok ? (response.body.results ?? response.body.items ?? []) : [];
  view.rows = rows;
  const allowed = viewset.ordering_fields;
  const sortable = (key) => viewset.filter_backends.includes('OrderingFilter')
    && (allowed === '__all__' || (Array.isArray(allowed) && allowed.includes(key)));
  const present = new Set(rows.flatMap((r) => Object.keys(r)));
  const keys = view.model.fields.map((f) => f.name).filter((k) => !rows.length || present.has(k));
  const columns = keys.map((key) => ({ key, label: key, sortable: sortable(key), numeric: /^(Integer|BigInteger|Double|Float|Decimal)/.test(view.model.fields.find((f) => f.name === key)?.type ?? '') }));
  const builder = new FilterBuilder(filterParams(ctx, viewset), view.filters);
  const searchBox = h('input.grow', { type: 'search', value: view.search, placeholder: `search ${viewset.search_fields.join(', ')}` });
  const canSearch = viewset.filter_backends.includes('SearchFilter') && viewset.search_fields.length > 0;
  const apply = () => { view.filters = builder.value(); view.search = searchBox.value; view.offset = 0; view.page = null; load(ctx); };
  searchBox.addEventListener('keydown', (e) => { if (e.key === 'Enter') apply(); });
  const count = response.ok ? response.body.count : null;
  const from = rows.length ? view.offset + 1 : 0;
  const next = response.body?.next;
  const previous = response.body?.previous;
  mount(records,
    h('div.row', {}, h('h3', {}, `${viewset.name} records`), h('span.muted.mono', {}, `GET ${url}`)),
    h('div.row', {}, canSearch ? labelled('Search', searchBox) : null,
      h('button', { type: 'button', on: { click: apply } }, 'Apply'),
      ctx.canWrite() ? h('button.plain', { type: 'button', on: { click: () => editRecord(ctx, null) } }, 'New record') : null),
    builder.element,
    view.notice ? h('p.note', { role: 'status' }, view.notice) : null,
    bulkControls(ctx, viewset, view.selected, (text) => load(ctx, text), () => schemaOf(`${viewset.prefix}/`, 'post')),
    response.ok ? null : errorView(response),
    table(columns, rows, {
      check: viewset.bulk?.delete && ctx.canWrite() ? {
        isChecked: (row) => view.selected.has(row[viewset.lookup_field] ?? row.id),
        onCheck: (row, on) => {
          const key = row[viewset.lookup_field] ?? row.id;
          if (on) view.selected.add(key); else view.selected.delete(key);
          showSelection(view.records, view.selected);
        },
      } : null,
      sort: view.sort,
      onSort: (key) => {
        view.sort = !view.sort || view.sort.key !== key ? { key, desc: false } : view.sort.desc ? null : { key, desc: true };
        view.offset = 0; view.page = null; load(ctx);
      },
      onRow: (row) => showRecord(ctx, row[viewset.lookup_field] ?? row.id),
    }),
    h('div.row', {},
      h('button.plain', { type: 'button', disabled: !(typeof previous === 'string' || view.offset > 0), on: { click: () => page(ctx, previous, -1) } }, '‹ Previous'),
      h('span.muted', { 'data-count': String(count ?? '') }, count === null || count === undefined ? `${rows.length} rows` : `${from}–${view.offset + rows.length} of ${count}`),
      h('button.plain', { type: 'button', disabled: !(typeof next === 'string' || (count !== null && view.offset + rows.length < count)), on: { click: () => page(ctx, next, 1) } }, 'Next ›'),
      labelled('Page size', h('select', { on: { change: (e) => { view.limit = Number(e.target.value); view.offset = 0; view.page = null; load(ctx); } } },
        [10, 20, 50, 100].filter((n) => n <= (viewset.max_limit ?? 100)).map((n) => h('option', { value: String(n), selected: n === view.limit }, String(n))))),
      h('span.grow'),
      h('button.plain', { type: 'button', on: { click: () => download(`${viewset.name}.csv`, 'text/csv', toCsv(keys, rows)) } }, 'Export CSV'),
      h('button.plain', { type: 'button', on: { click: () => download(`${viewset.name}.json`, 'application/json', JSON.stringify(rows, null, 2)) } }, 'Export JSON')));
  await view.chart?.refresh();
}

function page(ctx, link, direction) {
  if (typeof link === 'string') { view.page = link.replace(/^[a-z]+:\/\/[^/]+/i, ''); } else {
    view.page = null;
    view.offset = Math.max(0, view.offset + direction * view.limit);
  }
  load(ctx);
}

async function showRecord(ctx, pk) {
  const { viewset, detail } = view;
  view.pk = pk;
  detail.hidden = false;
  const response = await app(`${viewset.prefix}/${encodeURIComponent(pk)}`);
  if (!response.ok) { mount(detail, h('h3', {}, `Record ${pk}`), errorView(response)); return; }
  const record = response.body;
  const relations = h('div');
  mount(detail, h('h3', {}, `${view.model.name} ${pk}`), kv(record), h('h3', {}, 'Relations'), relations,
    ctx.canWrite() ? h('div.row', {},
      h('button', { type: 'button', on: { click: () => editRecord(ctx, record) } }, 'Edit'),
      h('button.danger', { type: 'button', on: { click: () => confirmDelete(ctx, record) } }, 'Delete')) : null);
  await renderRelations(ctx, relations, record);
}

async function renderRelations(ctx, box, record) {
  const items = [];
  for (const r of relationsOf(view.model)) {
    const target = ctx.modelOfTable(r.toTable);
    const targetSet = target && ctx.viewsetOf(target);
    const value = record[r.fromColumn];
    if (!targetSet || value === undefined) { items.push(h('li.muted', {}, `${r.name}: not served by a ViewSet`)); continue; }
    if (r.type === 'HasMany') {
      const counted = await app(`${targetSet.prefix}/${query([[r.toColumn, value], ['limit', 1]])}`);
      const n = counted.ok ? counted.body.count : '?';
      items.push(h('li', {}, h('button.plain', { type: 'button', on: { click: () => ctx.go('model-browser', { table: r.toTable, filters: [{ param: r.toColumn, value: String(value) }] }) } },
        `${r.name} (${n}) →`), h('span.muted', {}, ` ${target.name} where ${r.toColumn} = ${value}`)));
    } else {
      items.push(h('li', {}, h('button.plain', { type: 'button', disabled: value === null, on: { click: () => ctx.go('model-browser', { table: r.toTable, pk: value }) } },
        `${r.name} ${show(value)} →`), h('span.muted', {}, ` ${target.name}.${r.toColumn}`)));
    }
  }
  // Relations declared on other models that point here (the reverse direction).
  for (const other of ctx.context.models) {
    if (other === view.model) continue;
    for (const r of relationsOf(other)) {
      if (r.toTable !== view.model.table_name || r.type === 'HasMany') continue;
      if (relationsOf(view.model).some((mine) => mine.toTable === other.table_name)) continue;
      const set = ctx.viewsetOf(other);
      if (!set) continue;
      const counted = await app(`${set.prefix}/${query([[r.fromColumn, record[r.toColumn]], ['limit', 1]])}`);
      const n = counted.ok ? counted.body.count : '?';
      items.push(h('li', {}, h('button.plain', { type: 'button', on: { click: () => ctx.go('model-browser', { table: other.table_name, filters: [{ param: r.fromColumn, value: String(record[r.toColumn]) }] }) } },
        `${other.name} (${n}) →`)));
    }
  }
  mount(box, items.length ? h('ul', {}, items) : h('p.muted', {}, 'None.'));
}

function confirmDelete(ctx, record) {
  const pk = record[view.viewset.lookup_field] ?? record.id;
  const box = h('div.note', { role: 'alertdialog', 'aria-label': 'Confirm delete' }, `Delete ${view.model.name} ${pk}? `,
    h('button.danger', { type: 'button', on: { click: async () => {
      const r = await app(`${view.viewset.prefix}/${encodeURIComponent(pk)}`, { method: 'DELETE' });
      if (r.ok) { view.pk = null; view.detail.hidden = true; await load(ctx); } else box.replaceWith(errorView(r));
    } } }, 'Delete'), ' ', h('button.plain', { type: 'button', on: { click: () => box.remove() } }, 'Cancel'));
  view.detail.append(box);
  box.querySelector('button').focus();
}

/** Types of a JSON Schema property: ['integer'], ['number', 'null'], ... */
async function editRecord(ctx, record) {
  const { viewset, detail } = view;
  const creating = !record;
  const pk = record && (record[viewset.lookup_field] ?? record.id);
  const schema = creating ? await schemaOf(`${viewset.prefix}/`, 'post') : await schemaOf(`${viewset.prefix}/{pk}`, 'patch');
  detail.hidden = false;
  if (!schema) { mount(detail, h('p.alert', {}, 'The OpenAPI document describes no body for this write.')); return; }
  const inputs = {};
  const fields = Object.entries(schema.properties || {}).map(([name, prop]) => {
    const types = typesOf(prop);
    const current = record ? record[name] : undefined;
    let input;
    // An array or an object (a to-many relation written through this ViewSet): JSON, left out when blank.
    if (structured(prop)) input = h('textarea', { name, 'data-json': '', placeholder: 'JSON; blank leaves it out' }, current === undefined ? '' : JSON.stringify(current));
    else if (types.includes('boolean')) input = h('input', { type: 'checkbox', name, checked: !!current });
    else if (types.includes('integer') || types.includes('number')) input = h('input', { type: 'number', name, step: types.includes('integer') ? '1' : 'any', value: current ?? '' });
    else if (name === 'body' || (prop.maxLength ?? 1000) > 500) input = h('textarea', { name }, current ?? '');
    // No maxlength: the server validates, and its 422 shows next to the field.
    else input = h('input', { type: 'text', name, value: current ?? '', placeholder: prop.maxLength ? `at most ${prop.maxLength} characters` : null });
    inputs[name] = { input, types, initial: current };
    const required = (schema.required || []).includes(name);
    return h('div', { 'data-field': name }, labelled(`${name}${required ? ' *' : ''}`, input), h('span.field-error', { 'aria-live': 'polite' }));
  });
  const banner = h('div');
  const form = h('form.record', { novalidate: true }, h('h3', {}, creating ? `New ${view.model.name}` : `Edit ${view.model.name} ${pk}`),
    fields, banner, h('div.row', {}, h('button', { type: 'submit' }, 'Save'),
      h('button.plain', { type: 'button', on: { click: () => (creating ? mount(detail) : showRecord(ctx, pk)) } }, 'Cancel')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = {};
    for (const [name, { input, types, initial }] of Object.entries(inputs)) {
      let value;
      if (input.dataset.json !== undefined) {
        try { value = jsonField(input.value); } catch (err) {
          input.closest('[data-field]').querySelector('.field-error').textContent = `not JSON: ${err.message}`;
          return;
        }
        if (value !== undefined && JSON.stringify(value) === JSON.stringify(initial)) continue;
      } else if (input.type === 'checkbox') value = input.checked;
      else if (input.value === '') value = types.includes('null') ? null : (creating ? undefined : input.value);
      else if (types.includes('integer') || types.includes('number')) value = Number(input.value);
      else value = input.value;
      if (value === undefined || (!creating && value === initial)) continue;
      body[name] = value;
    }
    form.querySelectorAll('.field-error').forEach((el) => { el.textContent = ''; });
    mount(banner);
    const url = creating ? `${viewset.prefix}/` : `${viewset.prefix}/${encodeURIComponent(pk)}`;
    const r = await app(url, { method: creating ? 'POST' : 'PATCH', body });
    if (r.ok) {
      await load(ctx);
      await showRecord(ctx, creating ? (r.body[viewset.lookup_field] ?? r.body.id) : pk);
      return;
    }
    if (r.status === 422 && Array.isArray(r.body?.detail)) {
      const rest = [];
      for (const d of r.body.detail) {
        const field = (d.loc || [])[1];
        const slot = field && form.querySelector(`[data-field="${CSS.escape(String(field))}"] .field-error`);
        if (slot) slot.textContent = d.msg; else rest.push(d);
      }
      if (rest.length) banner.append(errorView({ status: 422, body: { detail: rest } }));
    } else {
      banner.append(errorView(r));
    }
  });
  mount(detail, form);
  form.querySelector('input, textarea')?.focus();
}
