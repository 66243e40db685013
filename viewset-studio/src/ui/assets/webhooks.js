// The Runtime Panel's Webhooks card: GET /studio/webhooks (the application's running webhooks, registered with
// Studio::webhooks) drawn as each endpoint's feeds (target, last event delivered, lease, failing or disabled), its
// newest attempts and its dead letters, with a Replay button per dead letter (POST /studio/webhooks/replay) and an
// Enable button for a disabled endpoint (POST /studio/webhooks/enable). Redrawn only when the answer changed, so a
// button is not replaced under the pointer by a poll.

import { studio } from './api.js';
import { h, mount, table, errorView } from './dom.js';

const time = (ms) => (ms ? new Date(ms).toLocaleTimeString() : '');

/** A feed's state as a badge: disabled, failing since, or delivering. */
function state(feed) {
  if (feed.disabled) return h('span.badge.bad', { 'data-feed-state': 'disabled' }, 'disabled');
  if (feed.failing_since) return h('span.badge.warn', { 'data-feed-state': 'failing' }, `failing since ${time(feed.failing_since)}`);
  return h('span.badge.ok', { 'data-feed-state': 'ok' }, 'delivering');
}

function lease(feed) {
  if (!feed.leased) return 'none';
  return feed.leased_here ? 'this process' : 'another instance';
}

/** One endpoint: its feeds, dead letters (each with Replay) and newest attempts. */
function endpointView(endpoint, act) {
  const disabled = endpoint.feeds.some((f) => f.disabled);
  return h('section', { 'data-endpoint': endpoint.name },
    h('h4', {}, endpoint.name, ' ', disabled
      ? h('button', { type: 'button', 'data-enable': endpoint.name, on: { click: () => act('enable', { endpoint: endpoint.name }) } }, 'Enable')
      : null),
    h('ul.feeds', {}, endpoint.feeds.map((f) => h('li', { 'data-feed': f.feed },
      state(f), ' ', h('span.mono', {}, f.viewset), ' → ', h('span.mono', {}, f.target),
      h('span.muted', {}, ` · last event ${f.cursor ?? 'none yet'} · lease: ${lease(f)}`)))),
    h('h5', {}, `Dead letters (${endpoint.dead_letters.length})`),
    endpoint.dead_letters.length
      ? h('ul.dead', {}, endpoint.dead_letters.map((d) => h('li', { 'data-dead': d.event_id },
        h('span.mono', {}, d.event_id), ` ${d.feed} · ${d.status ?? d.error ?? ''} · ${time(d.at)} `,
        h('button.plain', { type: 'button', on: { click: () => act('replay', { endpoint: endpoint.name, event_id: d.event_id }) } }, 'Replay'))))
      : h('p.muted', {}, 'None: every event was taken or is still being tried.'),
    h('h5', {}, 'Newest attempts'),
    table([
      { key: 'event_id', label: 'event' }, { key: 'feed', label: 'feed' }, { key: 'attempt', label: 'attempt', numeric: true },
      { key: 'answer', label: 'answer' }, { key: 'latency_ms', label: 'ms', numeric: true }, { key: 'when', label: 'at' },
      { key: 'next', label: 'next try' },
    ], endpoint.attempts.map((a) => ({
      ...a, answer: a.status ?? a.error ?? '', when: time(a.at), next: a.next_at ? time(a.next_at) : '',
    }))));
}

/**
 * Why the handshake's `metadata` says there is nothing to show (null when webhooks are registered): the paths would
 * answer 501 or 409, which the page does not ask for (a browser logs every refused request as an error).
 */
function absent(metadata) {
  if (metadata?.webhooks_registered) return null;
  return metadata?.webhooks_feature
    ? 'No webhooks registered: the application passes its running webhooks to Studio::webhooks to show them here.'
    : 'This build of viewset-studio has no webhooks (its `webhooks` feature is off).';
}

/** The card and its refresh (called by the Runtime Panel's poll), for the handshake's `metadata`. */
export function webhooksCard(metadata) {
  const box = h('section.card', { 'aria-label': 'Webhooks' }, h('h3', {}, 'Webhooks'), h('p.muted', {}, 'Loading…'));
  let shown = null; // the text of the last answer drawn
  let message = null; // what the last action answered
  let unavailable = absent(metadata); // why there is nothing to ask for, or the answer that said so
  if (unavailable) mount(box, h('h3', {}, 'Webhooks'), h('p.muted', { 'data-webhooks': 'unavailable' }, unavailable));
  const draw = (body) => mount(box, h('h3', {}, 'Webhooks'), message,
    body.endpoints.length ? body.endpoints.map((e) => endpointView(e, act)) : h('p.muted', {}, 'No endpoint.'));
  const refresh = async (force = false) => {
    if (unavailable) return;
    const r = await studio('/studio/webhooks');
    if (r.body?.code === 'webhooks_unavailable') {
      unavailable = `${r.status}: ${r.body.detail}`;
      mount(box, h('h3', {}, 'Webhooks'), h('p.muted', { 'data-webhooks': 'unavailable' }, unavailable));
      return;
    }
    if (!r.ok) { shown = null; mount(box, h('h3', {}, 'Webhooks'), errorView(r)); return; }
    if (!force && r.text === shown) return;
    shown = r.text;
    draw(r.body);
  };
  async function act(what, body) {
    const r = await studio(`/studio/webhooks/${what}`, { method: 'POST', body });
    if (!r.ok) message = h('div', { 'data-action': what, 'data-outcome': 'refused' }, errorView(r));
    else if (what === 'replay') {
      const { attempt } = r.body;
      const taken = attempt.status >= 200 && attempt.status < 300;
      message = h('p', { class: taken ? 'ok' : 'alert', 'data-action': 'replay', 'data-outcome': taken ? 'taken' : 'refused' },
        `Replayed ${attempt.event_id}: ${attempt.status ?? attempt.error}${taken ? ', taken: it left the dead letters.' : ', not taken: it stays a dead letter.'}`);
    } else message = h('p', { 'data-action': 'enable', 'data-outcome': 'enabled' }, `Enabled ${r.body.enabled}: it resumes after its last event.`);
    await refresh(true);
  }
  return { box, refresh };
}
