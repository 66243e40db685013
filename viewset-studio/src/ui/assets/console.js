// AI Console: the tool catalog of /ai/tools; a form generated from the chosen tool's input schema; the call run
// through the MCP server (/ai/tools/mcp, tools/call) or the matching REST route, as the chosen identity; the result
// or the policy denial shown as it came.

import { app, mcpCall, query } from './api.js';
import { h, mount, labelled, errorView } from './dom.js';

function typeOf(schema) {
  if (schema.type) return [].concat(schema.type).find((t) => t !== 'null');
  const options = schema.oneOf || schema.anyOf || [];
  return options.map((o) => o.type).find((t) => t && t !== 'null') || 'string';
}

/** One control per input property, and a reader that turns them into the tool's arguments. */
function formFor(tool) {
  const schema = tool.inputSchema || {};
  const required = new Set(schema.required || []);
  const fields = Object.entries(schema.properties || {}).map(([name, prop]) => {
    const type = typeOf(prop);
    let input;
    if (prop.enum) input = h('select', {}, h('option', { value: '' }, '(unset)'), prop.enum.map((v) => h('option', { value: String(v) }, String(v))));
    else if (type === 'boolean') input = h('select', {}, ['', 'true', 'false'].map((v) => h('option', { value: v }, v || '(unset)')));
    else if (type === 'object') {
      const sample = Object.fromEntries(Object.entries(prop.properties || {}).map(([k, v]) => [k, typeOf(v) === 'string' ? '' : null]));
      input = h('textarea', { spellcheck: 'false' }, JSON.stringify(sample, null, 2));
    } else input = h('input', { type: type === 'integer' || type === 'number' ? 'number' : 'text', placeholder: prop.default !== undefined ? String(prop.default) : '' });
    input.name = name;
    return { name, type, input, required: required.has(name), element: h('div.row', {}, labelled(`${name}${required.has(name) ? ' *' : ''}`, input), h('span.muted', {}, prop.description || '')) };
  });
  const read = () => {
    const args = {};
    for (const f of fields) {
      const raw = f.input.value.trim();
      if (raw === '') continue;
      if (f.type === 'object') args[f.name] = JSON.parse(raw);
      else if (f.type === 'integer' || f.type === 'number') args[f.name] = Number(raw);
      else if (f.type === 'boolean') args[f.name] = raw === 'true';
      else if (f.type === 'array') args[f.name] = raw.split(',').map((v) => v.trim());
      else args[f.name] = raw;
    }
    return args;
  };
  return { fields, read };
}

/** The REST request a tool stands for (as the server's dispatch builds it). */
function restCall(tool, args) {
  const meta = tool._meta || {};
  let path = meta.path;
  const pairs = [];
  let body;
  for (const [k, v] of Object.entries(args)) {
    if (k === 'pk') path = path.replace('{pk}', encodeURIComponent(v));
    else if (k === 'body') body = v;
    else if (k !== 'if_match') pairs.push([k, Array.isArray(v) ? v.join(',') : v]);
  }
  const headers = args.if_match ? { 'If-Match': args.if_match } : {};
  return app(`${path}${query(pairs)}`, { method: meta.method, body, headers });
}

export async function render(root, ctx) {
  const tools = ctx.tools;
  if (!tools.length) { mount(root, h('p.muted', {}, 'No AI tools are registered (no ViewSet is ai_exposed).')); return; }
  const select = h('select', { 'aria-label': 'Tool' }, tools.map((t) => h('option', { value: t.name }, `${t.name}${t._meta?.approval?.required ? ' (writes)' : ''}`)));
  const via = h('select', { 'aria-label': 'Run through' }, h('option', { value: 'mcp' }, 'MCP (tools/call)'), h('option', { value: 'rest' }, 'REST route'));
  const body = h('div');
  const result = h('section.card', { 'aria-label': 'Result', 'aria-live': 'polite' });
  const show = () => {
    const tool = tools.find((t) => t.name === select.value);
    const form = formFor(tool);
    const run = async () => {
      let args;
      try { args = form.read(); } catch (e) { mount(result, h('div.alert', {}, `Arguments: ${e.message}`)); return; }
      mount(result, h('p.muted', {}, 'Calling…'));
      if (via.value === 'rest') {
        const r = await restCall(tool, args);
        mount(result, h('h3', {}, `REST ${tool._meta.method} ${tool._meta.path}`), r.ok ? null : errorView(r),
          h('pre', { 'data-status': String(r.status) }, JSON.stringify(r.body, null, 2)));
        return;
      }
      const r = await mcpCall(tool.name, args);
      if (!r.ok || r.body?.error) { mount(result, h('h3', {}, 'MCP error'), r.ok ? h('pre', {}, JSON.stringify(r.body.error, null, 2)) : errorView(r)); return; }
      const res = r.body.result || {};
      const structured = res.structuredContent || {};
      mount(result,
        h('h3', {}, res.isError ? `Denied or failed: ${structured.status ?? ''}` : `Result: ${structured.status ?? 'ok'}`),
        res.isError && structured.body ? errorView({ status: structured.status, body: structured.body }) : null,
        h('pre', { 'data-status': String(structured.status ?? '') }, JSON.stringify(structured.body ?? res.content, null, 2)));
    };
    mount(body,
      h('p', {}, tool.description || ''),
      tool._meta?.approval?.required ? h('p.note', {}, `Approval hint: ${tool._meta.approval.reason}`) : null,
      h('p.muted.mono', {}, `${tool._meta?.method ?? ''} ${tool._meta?.path ?? ''}`),
      form.fields.map((f) => f.element),
      h('div.row', {}, labelled('Run through', via), h('button', { type: 'button', on: { click: run } }, 'Run tool')));
  };
  select.addEventListener('change', show);
  mount(root, h('section.card', {}, h('div.row', {}, labelled('Tool', select), h('span.muted', {}, `${tools.length} tools`)), body), result);
  show();
}
