// Migration Manager: each app's migration graph as SVG (applied filled, pending dashed, heads bold), conflicts
// highlighted with their fix, and each migration's state. Reads /studio/migrations/summary and the history in
// /ai/context/full.

import { studio, studioJson } from './api.js';
import { h, mount, s, table, errorView } from './dom.js';

const NODE_W = 190;
const NODE_H = 30;
const GAP_X = 40;
const GAP_Y = 16;

/** Depth of each migration in its app (longest chain of dependencies inside the app). */
function depths(migrations) {
  const byName = new Map(migrations.map((m) => [m.name, m]));
  const memo = new Map();
  const depth = (name, seen = new Set()) => {
    if (memo.has(name)) return memo.get(name);
    if (seen.has(name)) return 0;
    seen.add(name);
    const deps = (byName.get(name)?.dependencies || []).filter((d) => byName.has(d));
    const d = deps.length ? 1 + Math.max(...deps.map((dep) => depth(dep, seen))) : 0;
    memo.set(name, d);
    return d;
  };
  migrations.forEach((m) => depth(m.name));
  return memo;
}

function graph(app, conflict) {
  const d = depths(app.migrations);
  const columns = [];
  for (const m of app.migrations) (columns[d.get(m.name)] ||= []).push(m);
  const pos = new Map();
  columns.forEach((col, x) => col.forEach((m, y) => pos.set(m.name, { x: 10 + x * (NODE_W + GAP_X), y: 10 + y * (NODE_H + GAP_Y) })));
  const width = 20 + columns.length * (NODE_W + GAP_X) - GAP_X;
  const height = 20 + Math.max(1, ...columns.map((c) => c.length)) * (NODE_H + GAP_Y) - GAP_Y;
  const heads = new Set(app.heads);
  const edges = app.migrations.flatMap((m) => (m.dependencies || []).filter((dep) => pos.has(dep)).map((dep) => {
    const a = pos.get(dep);
    const b = pos.get(m.name);
    const x1 = a.x + NODE_W; const y1 = a.y + NODE_H / 2; const x2 = b.x; const y2 = b.y + NODE_H / 2;
    return s('path', { class: 'edge', d: `M${x1},${y1} C${x1 + GAP_X / 2},${y1} ${x2 - GAP_X / 2},${y2} ${x2},${y2}`, 'marker-end': 'url(#arrow)' });
  }));
  const nodes = app.migrations.map((m) => {
    const p = pos.get(m.name);
    const classes = ['node', m.applied ? 'applied' : 'pending', heads.has(m.name) ? 'head' : '', conflict && heads.has(m.name) ? 'conflict' : ''].join(' ');
    const label = m.name.length > 28 ? `${m.name.slice(0, 27)}…` : m.name;
    return s('g', { 'data-migration': m.name }, s('title', {}, `${m.name}: ${m.applied ? 'applied' : 'pending'}${heads.has(m.name) ? ', head' : ''}`),
      s('rect', { class: classes, x: p.x, y: p.y, width: NODE_W, height: NODE_H, rx: 6 }),
      s('text', { x: p.x + 8, y: p.y + NODE_H / 2 + 4 }, label));
  });
  const defs = s('defs', {}, s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: '9', refY: '5', markerWidth: '7', markerHeight: '7', orient: 'auto-start-reverse' },
    s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'edge' })));
  return s('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `Migration graph of ${app.app_label}` }, defs, edges, nodes);
}

export async function render(root, ctx, state) {
  const [summary, context] = await Promise.all([studioJson('/studio/migrations/summary'), studioJson('/ai/context/full')]);
  ctx.context = context;
  const history = new Map(context.migrations.apps.map((a) => [a.app_label, a]));
  const conflicts = new Map((summary.conflicts || []).map((c) => [c.app_label, c]));
  mount(root,
    h('section.card', {}, h('div.row', {},
      h('span', {}, `${summary.total_migrations} migrations: ${summary.applied_migrations} applied, `),
      h('span', { class: summary.pending_migrations ? 'warn' : 'ok' }, `${summary.pending_migrations} pending`),
      h('span.muted', {}, `last applied: ${summary.last_applied ?? 'none'}`),
      h('span.muted.mono', {}, `checksum ${summary.migrations_checksum.slice(0, 12)}…`)),
    h('p.muted', {}, 'Legend: filled = applied, dashed = pending, bold = head of its app, red = conflicting heads.'),
    applyControls(root, ctx, summary, context),
    state?.result ?? null),
    summary.apps.map((app) => {
      const full = history.get(app.app_label) || { migrations: [], heads: app.head_migrations };
      const conflict = conflicts.get(app.app_label);
      const outside = full.migrations.flatMap((m) => (m.dependencies || []).filter((d) => !full.migrations.some((o) => o.name === d)).map((d) => `${m.name} depends on ${d}`));
      return h('section.card', { 'data-app': app.app_label, class: conflict ? 'card conflict' : 'card' },
        h('h3', {}, `${app.app_label} `, h('span.muted', {}, `${app.applied}/${app.total} applied, heads: ${app.head_migrations.join(', ') || 'none'}`)),
        conflict ? h('div.alert', { role: 'alert' }, h('strong', {}, 'Conflict: '), conflict.message) : null,
        h('div.table-wrap', {}, graph(full, !!conflict)),
        outside.length ? h('p.muted', {}, `Across apps: ${outside.join('; ')}`) : null,
        table([{ key: 'name', label: 'migration' }, { key: 'state', label: 'state' }, { key: 'applied_at', label: 'applied at' }, { key: 'dependencies', label: 'depends on' }],
          full.migrations.map((m) => ({
            name: m.name, state: m.applied ? 'applied' : 'pending',
            applied_at: m.applied_at ? new Date(m.applied_at * 1000).toISOString() : '',
            dependencies: (m.dependencies || []).join(', '),
          }))));
    }));
}

/** The apply button (only with the `apply_migrations` capability: a registered migrator, development), with a
 * confirmation listing what is pending, and the result shown after the graph is drawn again. */
function applyControls(root, ctx, summary, context) {
  if (!ctx.capabilities().includes('apply_migrations')) {
    return h('p.note', {}, 'Applying from Studio needs the application to register its migrator (Studio::migrator) and the development environment: run your Migrator (e.g. `Migrator::up`) and reload.');
  }
  if (!summary.pending_migrations) return null;
  const pending = context.migrations.apps.flatMap((a) => a.migrations.filter((m) => !m.applied).map((m) => `${a.app_label}: ${m.name}`));
  const box = h('div');
  const ask = () => mount(box, h('div.note', { role: 'alertdialog', 'aria-label': 'Confirm apply' },
    h('p', {}, `Apply the pending migrations the application's migrator knows, in its order, to the ${ctx.handshake?.database?.dialect ?? ''} database?`),
    h('ul', {}, pending.map((p) => h('li.mono', {}, p))),
    h('button.danger', { type: 'button', on: { click: run } }, 'Apply'), ' ',
    h('button.plain', { type: 'button', on: { click: () => mount(box, button) } }, 'Cancel')));
  const run = async () => {
    mount(box, h('p.muted', {}, 'Applying…'));
    const r = await studio('/studio/migrations/apply', { method: 'POST' });
    const applied = r.body?.applied ?? [];
    const left = r.body?.summary?.pending_migrations;
    const result = h('section.card', { 'aria-label': 'Apply result', 'data-applied': applied.join(' ') },
      h('h3', {}, r.ok ? `Applied ${applied.length} migration${applied.length === 1 ? '' : 's'}` : 'Apply failed'),
      r.ok ? null : errorView(r),
      applied.length ? h('ul', {}, applied.map((n) => h('li.mono', {}, n))) : null,
      left ? h('p.muted', {}, `${left} still pending: the migrator does not know them (or failed before them).`) : null);
    await render(root, ctx, { result });
  };
  const button = h('button', { type: 'button', on: { click: ask } }, `Apply ${summary.pending_migrations} pending migration${summary.pending_migrations === 1 ? '' : 's'}…`);
  return mount(box, button);
}
