// The page: navigation between the six panels (URL hash), the "Act as" identity, sign-out, the data the panels
// share (the full context, the handshake, the tool catalog) and the live feed of lifecycle events, which follows the
// "Act as" identity.

import { AUTH, CSRF, identity, setIdentity, studio, studioJson } from './api.js';
import { h, mount, errorView } from './dom.js';
import { Feed } from './feed.js';
import * as models from './models.js';
import * as queryExplorer from './query.js';
import * as migrations from './migrations.js';
import * as inspector from './inspector.js';
import * as aiConsole from './console.js';
import * as runtime from './runtime.js';

const PANELS = [
  { id: 'model-browser', label: 'Model Browser', module: models },
  { id: 'query-explorer', label: 'Query Explorer', module: queryExplorer },
  { id: 'migration-manager', label: 'Migration Manager', module: migrations },
  { id: 'api-inspector', label: 'API Inspector', module: inspector },
  { id: 'ai-console', label: 'AI Console', module: aiConsole },
  { id: 'runtime-panel', label: 'Runtime Panel', module: runtime },
];

/** What every panel may read: loaded once, reloaded on demand. */
const ctx = {
  context: null, // GET /ai/context/full
  handshake: null, // GET /studio/handshake
  tools: [], // GET /ai/tools
  feed: null, // the live feed of lifecycle events as the chosen identity (feed.js)
  earlierFeeds: [], // the feeds of the identities chosen before, closed, newest first
  feedListeners: new Set(),
  capabilities() { return this.handshake?.capabilities ?? []; },
  canWrite() { return this.capabilities().includes('write_data'); },
  /** The ViewSet description of a model name or table. */
  viewsetOf(model) { return this.context?.viewsets.find((v) => v.model === model.name) ?? null; },
  modelOfTable(table) { return this.context?.models.find((m) => m.table_name === table) ?? null; },
  listTool(viewset) {
    return this.tools.find((t) => t._meta?.viewset === viewset.name && t._meta?.operation === 'list') ?? null;
  },
  /** Shows `panel` with `state` (e.g. the Model Browser on a record). */
  go(panel, state) {
    pending = state ?? null;
    if (location.hash === `#${panel}`) route(); else location.hash = panel;
  },
  async reload() {
    [this.context, this.handshake, this.tools] = await Promise.all([
      studioJson('/ai/context/full'), studioJson('/studio/handshake'),
      studioJson('/ai/tools').then((c) => c.tools),
    ]);
  },
};

let current = null;
let pending = null; // the state handed to the next panel shown

function renderNav(activeId) {
  const nav = document.getElementById('nav');
  mount(nav, PANELS.map((p) => h('li', {}, h('a', {
    href: `#${p.id}`, 'aria-current': p.id === activeId ? 'page' : null,
  }, p.label))));
}

async function route() {
  const state = pending;
  pending = null;
  const id = location.hash.slice(1) || PANELS[0].id;
  const panel = PANELS.find((p) => p.id === id) ?? PANELS[0];
  if (current?.module.leave) current.module.leave();
  current = panel;
  renderNav(panel.id);
  document.title = `Studio · ${panel.label}`;
  const main = document.getElementById('main');
  const root = mount(main, h('h2', {}, panel.label));
  const body = h('div', { 'data-panel': panel.id });
  root.append(body);
  try {
    await panel.module.render(body, ctx, state);
  } catch (e) {
    mount(body, e.response ? errorView(e.response) : h('div.alert', { role: 'alert' }, String(e)));
  }
  body.setAttribute('data-ready', 'true');
}

/**
 * (Re)starts the live feed as the chosen identity: every ViewSet's stream read with fetch and its Authorization
 * (feed.js). The previous identity's feed is closed and kept, labelled, below the current one.
 */
function startFeed() {
  if (ctx.feed) {
    ctx.feed.stop();
    if (ctx.feed.events.length) ctx.earlierFeeds.unshift(ctx.feed);
    ctx.earlierFeeds.length = Math.min(ctx.earlierFeeds.length, 3);
  }
  ctx.feed = new Feed(identity(), ctx.context?.viewsets ?? [], notify);
  notify();
}

function notify() {
  for (const listener of ctx.feedListeners) listener();
}

function setUpHeader() {
  const input = document.getElementById('act-as');
  input.value = identity();
  let restart = null;
  input.addEventListener('input', () => {
    setIdentity(input.value);
    // The feed follows the identity once typing pauses (not one reconnection per keystroke).
    clearTimeout(restart);
    restart = setTimeout(() => { if (ctx.feed && ctx.feed.token !== identity()) startFeed(); }, 300);
  });
  const signOut = document.getElementById('sign-out');
  if (AUTH === 'session' && CSRF) {
    signOut.hidden = false;
    signOut.addEventListener('click', async () => {
      await studio('/studio/session', { method: 'DELETE' });
      location.reload();
    });
  }
}

async function boot() {
  setUpHeader();
  try {
    await ctx.reload();
  } catch (e) {
    mount(document.getElementById('main'), e.response ? errorView(e.response) : String(e));
    return;
  }
  startFeed();
  window.addEventListener('hashchange', () => route());
  await route();
}

boot();
