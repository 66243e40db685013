// Query Explorer: compose filters, search, ordering and paging for a ViewSet, run it with POST /ai/query/execute
// (the list route as the chosen identity), and show the equivalent request URL, the rows, the SQL that ran with
// its times, and the whole call's time; in debug mode (the `debug_panels` capability) the database's plan of each
// statement (EXPLAIN). Recent queries are kept in this browser (localStorage).

import { studio, query } from './api.js';
import { h, mount, table, errorView, labelled } from './dom.js';

const RESERVED = new Set(['limit', 'offset', 'cursor', 'page', 'page_size', 'search', 'ordering', 'fields', 'expand', 'count', 'format', 'or']);
const HISTORY_KEY = 'studio.queryHistory';

/** The filter parameters a ViewSet's list accepts: from its list tool's input schema, else its exact filters. */
export function filterParams(ctx, viewset) {
  const tool = ctx.listTool(viewset);
  if (tool) {
    return Object.entries(tool.inputSchema.properties || {}).filter(([name]) => !RESERVED.has(name)).map(([param, schema]) => {
      const [field, lookup = 'exact'] = param.split('__');
      return { param, field, lookup, description: schema.description || '' };
    });
  }
  return (viewset.filterable_fields || []).map((field) => ({ param: field, field, lookup: 'exact', description: '' }));
}

/** Rows of field / lookup / value, built from the allowed parameters only. */
export class FilterBuilder {
  constructor(params, initial = []) {
    this.params = params;
    this.fields = [...new Set(params.map((p) => p.field))];
    this.list = h('div');
    this.element = h('div', {}, this.list, this.fields.length
      ? h('button.plain', { type: 'button', on: { click: () => this.add() } }, '+ Filter')
      : h('span.muted', {}, 'This ViewSet declares no filters.'));
    for (const f of initial) this.add(f);
  }

  add(initial) {
    const known = initial && this.params.find((p) => p.param === initial.param);
    const field = h('select', { 'aria-label': 'Filter field' }, this.fields.map((f) => h('option', { value: f, selected: known?.field === f }, f)));
    const lookup = h('select', { 'aria-label': 'Lookup' });
    const value = h('input', { type: 'text', 'aria-label': 'Filter value', value: initial?.value ?? '', placeholder: 'value' });
    const fill = () => {
      const lookups = this.params.filter((p) => p.field === field.value);
      mount(lookup, lookups.map((p) => h('option', { value: p.param, title: p.description, selected: known?.param === p.param }, p.lookup)));
    };
    field.addEventListener('change', fill);
    fill();
    const row = h('div.row.filter', {}, field, lookup, value,
      h('button.plain', { type: 'button', 'aria-label': 'Remove filter', on: { click: () => row.remove() } }, '✕'));
    this.list.append(row);
    if (!initial) field.focus();
  }

  /** [{param, value}] of the rows with a value. */
  value() {
    return [...this.list.querySelectorAll('.filter')].map((row) => {
      const [, lookup] = row.querySelectorAll('select');
      return { param: lookup.value, value: row.querySelector('input').value };
    }).filter((f) => f.param && f.value !== '');
  }
}

function history() {
  try { return JSON.parse(localStorage.getItem(HISTORY_KEY)) || []; } catch { return []; }
}

function remember(entry) {
  const list = [entry, ...history().filter((e) => JSON.stringify(e.query) !== JSON.stringify(entry.query))].slice(0, 20);
  localStorage.setItem(HISTORY_KEY, JSON.stringify(list));
}

export async function render(root, ctx, state) {
  const viewsets = ctx.context.viewsets.filter((v) => ctx.listTool(v));
  if (!viewsets.length) { mount(root, h('p.muted', {}, 'No AI-exposed ViewSet with a list: nothing to query.')); return; }
  const restored = state?.query;
  const select = h('select', {}, viewsets.map((v) => h('option', { value: v.name, selected: restored?.viewset === v.name }, v.name)));
  const form = h('div');
  const output = h('section.card', { 'aria-label': 'Result', 'aria-live': 'polite' });
  const historyBox = h('section.card', { 'aria-label': 'History' });

  const build = () => {
    const viewset = viewsets.find((v) => v.name === select.value);
    const builder = new FilterBuilder(filterParams(ctx, viewset), restored?.viewset === viewset.name
      ? Object.entries(restored.filters || {}).map(([param, value]) => ({ param, value })) : []);
    const search = h('input.grow', { type: 'search', value: restored?.search ?? '', placeholder: viewset.search_fields.join(', ') || 'no search fields' });
    const ordering = h('input', { type: 'text', value: restored?.ordering ?? '', placeholder: (viewset.ordering || []).join(',') });
    const limit = h('input', { type: 'number', min: '1', max: String(viewset.max_limit ?? 100), value: restored?.limit ?? viewset.default_limit ?? 20 });
    const offset = h('input', { type: 'number', min: '0', value: restored?.offset ?? 0 });
    const debug = ctx.capabilities().includes('debug_panels');
    const explain = h('input', { type: 'checkbox', checked: Boolean(restored?.explain) });
    const run = () => execute(ctx, viewset, {
      viewset: viewset.name,
      filters: Object.fromEntries(builder.value().map((f) => [f.param, f.value])),
      search: search.value || undefined, ordering: ordering.value || undefined,
      limit: Number(limit.value) || undefined, offset: Number(offset.value) || undefined,
      explain: (debug && explain.checked) || undefined,
    }, output, () => renderHistory(historyBox, ctx));
    const allowed = viewset.ordering_fields === '__all__' ? 'any field' : (viewset.ordering_fields || []).join(', ');
    mount(form, builder.element,
      h('div.row', {}, labelled('Search', search)),
      h('div.row', {}, labelled('Ordering', ordering), h('span.muted', {}, `allowed: ${allowed || 'none'}`)),
      h('div.row', {}, labelled('Limit', limit), labelled('Offset', offset),
        debug ? labelled('EXPLAIN', explain) : null,
        h('button', { type: 'button', on: { click: run } }, 'Run query')));
    return run;
  };
  let run = build();
  select.addEventListener('change', () => { run = build(); });
  mount(root, h('section.card', {}, h('div.row', {}, labelled('ViewSet', select)), form), output, historyBox);
  renderHistory(historyBox, ctx);
  if (restored) run();
}

async function execute(ctx, viewset, body, output, refreshHistory) {
  const pairs = [...Object.entries(body.filters), ['search', body.search], ['ordering', body.ordering], ['limit', body.limit], ['offset', body.offset]];
  const url = `${viewset.prefix}/${query(pairs)}`;
  mount(output, h('p.muted', {}, 'Running…'));
  const r = await studio('/ai/query/execute', { method: 'POST', body, asIdentity: true });
  remember({ at: new Date().toISOString(), query: body, status: r.status });
  refreshHistory();
  if (!r.ok) { mount(output, h('h3', {}, 'Request'), h('pre', {}, `GET ${url}`), errorView(r)); return; }
  const rows = r.body.rows || [];
  const keys = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  mount(output,
    h('h3', {}, 'Request'), h('pre', { 'data-url': url }, `GET ${url}`),
    h('div.row', {}, h('span', {}, `${r.body.count ?? rows.length} matching, ${rows.length} shown`),
      h('span.muted', {}, `call ${r.body.time_ms.toFixed(1)} ms`)),
    table(keys.map((key) => ({ key, label: key })), rows),
    h('h3', {}, 'SQL'),
    (r.body.sql || []).map((s) => h('div', {}, h('span.muted', {}, `${s.role} · ${s.elapsed_ms === null ? 'did not finish' : `${s.elapsed_ms.toFixed(2)} ms`}`), h('pre.sql', {}, s.sql),
      s.plan ? h('pre.plan', { 'aria-label': `EXPLAIN of the ${s.role} statement` }, Array.isArray(s.plan) ? s.plan.join('\n') : JSON.stringify(s.plan)) : null)),
    ctx.capabilities().includes('debug_panels') ? null : h('p.note', {}, 'EXPLAIN is a debug panel: run the application with SERVICE_DEBUG=true to see each plan.'));
}

function renderHistory(box, ctx) {
  const entries = history();
  mount(box, h('h3', {}, 'Recent queries'), entries.length ? h('ol', {}, entries.map((e) => h('li', {},
    h('button.plain', { type: 'button', on: { click: () => ctx.go('query-explorer', { query: e.query }) } },
      `${e.query.viewset} ${JSON.stringify(e.query.filters)}${e.query.search ? ` search=${e.query.search}` : ''}${e.query.ordering ? ` ordering=${e.query.ordering}` : ''}`),
    h('span.muted', {}, ` ${e.status} · ${new Date(e.at).toLocaleTimeString()}`)))) : h('p.muted', {}, 'None yet.'),
  entries.length ? h('button.plain', { type: 'button', on: { click: () => { localStorage.removeItem(HISTORY_KEY); renderHistory(box, ctx); } } }, 'Clear history') : null);
}
