// API Inspector: every route of the application's OpenAPI document (/openapi.json) with its method, path, tags,
// security, parameters and schemas, the ViewSet's allowlists beside it, and a try-out request sent as the chosen
// identity.

import { app, identity } from './api.js';
import { h, mount, show, labelled } from './dom.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** A JSON Schema with `$ref`s to components resolved (one level deep per reference, cycles cut). */
function resolve(document, schema, seen = new Set()) {
  if (!schema || typeof schema !== 'object') return schema;
  if (schema.$ref) {
    if (seen.has(schema.$ref)) return { $ref: schema.$ref };
    const target = schema.$ref.replace(/^#\//, '').split('/').reduce((o, k) => o?.[k], document);
    return resolve(document, target, new Set([...seen, schema.$ref]));
  }
  if (Array.isArray(schema)) return schema.map((s) => resolve(document, s, seen));
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, resolve(document, v, seen)]));
}

/** A sample body from a schema (the try-out's starting point). */
function sample(schema) {
  if (!schema) return null;
  if (schema.example !== undefined) return schema.example;
  const type = [].concat(schema.type || (schema.oneOf || schema.anyOf || []).map((s) => s.type).find((t) => t && t !== 'null') || 'string')[0];
  if (type === 'object') return Object.fromEntries(Object.entries(schema.properties || {}).map(([k, v]) => [k, sample(v)]));
  if (type === 'array') return [];
  if (type === 'integer' || type === 'number') return 0;
  if (type === 'boolean') return false;
  return '';
}

export async function render(root, ctx) {
  const r = await app('/openapi.json');
  if (!r.ok || !r.body?.paths) { mount(root, h('p.alert', {}, `The application serves no OpenAPI document at /openapi.json (${r.status}).`)); return; }
  const document = r.body;
  const operations = Object.entries(document.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })));
  const filter = h('input.grow', { type: 'search', placeholder: 'filter by path, tag or summary' });
  const list = h('div');
  const detail = h('section.card', { 'aria-label': 'Operation', hidden: true });
  const draw = () => {
    const needle = filter.value.toLowerCase();
    const shown = operations.filter(({ path, method, op }) => !needle || `${method} ${path} ${(op.tags || []).join(' ')} ${op.summary || ''}`.toLowerCase().includes(needle));
    mount(list, h('div.table-wrap', {}, h('table', {}, h('thead', {}, h('tr', {}, ['method', 'path', 'tags', 'summary', 'auth'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, shown.map((o) => {
        const tr = h('tr.clickable', { tabindex: '0', 'data-operation': `${o.method.toUpperCase()} ${o.path}` },
          h('td', {}, h('span.method', {}, o.method.toUpperCase())), h('td.mono', {}, o.path), h('td', {}, (o.op.tags || []).join(', ')),
          h('td', {}, o.op.summary || ''), h('td', {}, authOf(o.op)));
        const open = () => showOperation(ctx, document, o, detail);
        tr.addEventListener('click', open);
        tr.addEventListener('keydown', (e) => { if (e.key === 'Enter') open(); });
        return tr;
      })))));
  };
  filter.addEventListener('input', draw);
  mount(root, h('section.card', {}, h('div.row', {}, h('span', {}, `${document.info?.title ?? 'API'} ${document.info?.version ?? ''} · ${operations.length} operations`), labelled('Filter', filter)), list), detail);
  draw();
}

function authOf(op) {
  if (!op.security) return 'not stated';
  return op.security.some((req) => Object.keys(req).length === 0) ? 'optional' : 'required';
}

function showOperation(ctx, document, { path, method, op }, box) {
  box.hidden = false;
  const viewset = ctx.context.viewsets.find((v) => path === `${v.prefix}/` || path.startsWith(`${v.prefix}/`));
  const params = (op.parameters || []).map((p) => resolve(document, p));
  const documented = op.requestBody?.content?.['application/json']?.schema;
  // An upsert documents `oneOf` [the record, an array of records]: the sample is one record.
  const bodySchema = resolve(document, documented?.oneOf ? documented.oneOf[0] : documented);
  const pathInputs = params.filter((p) => p.in === 'path').map((p) => [p.name, h('input', { type: 'text', 'aria-label': p.name, placeholder: p.name })]);
  const queryInput = h('input.grow', { type: 'text', placeholder: 'limit=5&ordering=-id' });
  const bodyInput = bodySchema ? h('textarea', { 'aria-label': 'Request body' }, JSON.stringify(sample(bodySchema), null, 2)) : null;
  const result = h('div', { 'aria-live': 'polite' });
  const send = async () => {
    let url = path;
    for (const [name, input] of pathInputs) url = url.replace(`{${name}}`, encodeURIComponent(input.value));
    if (queryInput.value.trim()) url += `?${queryInput.value.trim().replace(/^\?/, '')}`;
    const r = await app(url, { method: method.toUpperCase(), body: bodyInput ? bodyInput.value : undefined });
    mount(result, h('div.row', {}, h('strong', { class: r.ok ? 'ok' : 'bad' }, `${r.status} ${r.statusText}`), h('span.muted', {}, `${r.ms.toFixed(1)} ms as ${identity() ? 'the chosen identity' : 'anonymous'}`)),
      h('pre', { 'data-status': String(r.status) }, typeof r.body === 'string' ? r.body : JSON.stringify(r.body, null, 2)));
  };
  const allowlists = viewset ? {
    viewset: viewset.name, filterable_fields: viewset.filterable_fields, search_fields: viewset.search_fields,
    ordering_fields: viewset.ordering_fields, default_ordering: viewset.ordering, staff_only_fields: viewset.staff_only_fields,
    limit: `${viewset.default_limit} (max ${viewset.max_limit})`,
  } : null;
  mount(box,
    h('h3', {}, h('span.method', {}, method.toUpperCase()), ` ${path}`),
    h('p', {}, op.summary || '', op.description ? h('span.muted', {}, ` ${op.description}`) : null),
    h('p.muted', {}, `Tags: ${(op.tags || []).join(', ') || 'none'} · authentication ${authOf(op)} · operationId ${op.operationId ?? '—'}`),
    allowlists ? [h('h3', {}, 'Allowlists'), h('dl.kv', {}, Object.entries(allowlists).map(([k, v]) => [h('dt', {}, k), h('dd', {}, show(v))]))] : null,
    params.length ? [h('h3', {}, 'Parameters'), h('div.table-wrap', {}, h('table', {}, h('tbody', {}, params.map((p) => h('tr', {},
      h('td.mono', {}, p.name), h('td', {}, p.in), h('td', {}, p.required ? 'required' : ''), h('td.mono', {}, show(p.schema?.type ?? p.schema)), h('td', {}, p.description || ''))))))] : null,
    bodySchema ? [h('h3', {}, 'Request body'), h('pre', {}, JSON.stringify(bodySchema, null, 2))] : null,
    h('h3', {}, 'Responses'), h('ul', {}, Object.entries(op.responses || {}).map(([code, resp]) => h('li', {}, h('strong', {}, code), ` ${resolve(document, resp)?.description ?? ''}`))),
    h('h3', {}, 'Try it'),
    h('div.row', {}, pathInputs.map(([name, input]) => labelled(name, input)), labelled('Query', queryInput)),
    bodyInput, h('div.row', {}, h('button', { type: 'button', on: { click: send } }, 'Send request'), h('span.muted', {}, 'Sent as the "Act as" identity.')),
    result);
  box.scrollIntoView({ block: 'nearest' });
}
