// The live feed: every ViewSet's `<prefix>/stream`, read with fetch as one identity (`Authorization: Bearer
// <token>`, or none for anonymous), so it shows the events that identity may see, as its REST stream does. A
// browser EventSource cannot send Authorization; fetch can, so the event-stream format is parsed here (sse.js).
//
// Each stream is `connecting`, `open`, `reconnecting` (after a drop, a 5xx or a network error: again after the
// server's `retry` hint, 1 s by default, doubled per failure up to 15 s, with `Last-Event-ID` so the server replays
// what was missed), `denied` (401/403: shown with the server's reason, never retried; another identity starts a new
// feed) or `closed` (another status, or not an event stream). A `reset` event (the id does not resume, a gap, a
// lagging subscriber, a shutdown) is shown in the feed: events may be missing there. Its id is forgotten, except
// after `shutdown`, whose reconnection may resume on a server that still has the buffer.

import { EventStreamParser } from './sse.js';

const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 15000;
const KEEP = 200; // events kept per feed, newest first
const KINDS = ['created', 'updated', 'deleted'];

/** How an identity is named in the page: its token, shortened, or "anonymous". */
export function who(token) {
  if (!token) return 'anonymous';
  return token.length > 32 ? `${token.slice(0, 28)}…` : token;
}

export class Feed {
  /** Follows the streams of `viewsets` as `token` ('' = anonymous); `changed()` after each new state or event. */
  constructor(token, viewsets, changed) {
    this.token = token;
    this.since = new Date();
    this.until = null; // set by stop()
    this.events = [];
    this.streams = {}; // ViewSet name -> {name, url, state, detail, connections, lastEventId, retry}
    this.changed = changed;
    this.abort = new AbortController();
    for (const viewset of viewsets) if (viewset.stream_enabled) this.follow(viewset);
  }

  /** Closes every stream of this feed for good. */
  stop() {
    if (this.until) return;
    this.until = new Date();
    this.abort.abort();
    for (const stream of Object.values(this.streams)) {
      if (stream.state !== 'denied') Object.assign(stream, { state: 'closed', detail: 'the identity changed' });
    }
  }

  set(stream, state, detail = '') {
    if (this.until) return;
    Object.assign(stream, { state, detail });
    this.changed();
  }

  add(entry) {
    this.events.unshift({ at: new Date(), ...entry });
    this.events.length = Math.min(this.events.length, KEEP);
    this.changed();
  }

  async follow(viewset) {
    const stream = {
      name: viewset.name, url: `${viewset.prefix}/stream`, state: 'connecting', detail: '', connections: 0,
      lastEventId: '', retry: FIRST_DELAY_MS,
    };
    this.streams[viewset.name] = stream;
    let failures = 0;
    while (!this.until) {
      const end = await this.connect(stream);
      if (this.until) return;
      if (end.final) { this.set(stream, end.state, end.detail); return; }
      failures = end.opened ? 1 : failures + 1;
      const delay = Math.min(MAX_DELAY_MS, stream.retry * 2 ** (failures - 1)) * (0.8 + Math.random() * 0.4);
      this.set(stream, 'reconnecting', `${end.detail}; connecting again in ${(delay / 1000).toFixed(1)} s`);
      await sleep(delay, this.abort.signal);
    }
  }

  /** One connection, read to its end: {final, state, detail} when it must not be retried, else {opened, detail}. */
  async connect(stream) {
    const headers = { Accept: 'text/event-stream' };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (stream.lastEventId) headers['Last-Event-ID'] = stream.lastEventId;
    stream.connections += 1;
    const resume = stream.lastEventId ? `, Last-Event-ID ${stream.lastEventId}` : '';
    this.set(stream, stream.state === 'reconnecting' ? 'reconnecting' : 'connecting',
      stream.connections > 1 ? `connection ${stream.connections}${resume}` : '');
    let response;
    try {
      response = await fetch(stream.url, {
        headers, cache: 'no-store', credentials: 'same-origin', signal: this.abort.signal,
      });
    } catch {
      return { detail: 'no connection' };
    }
    if (response.status === 401 || response.status === 403) {
      return { final: true, state: 'denied', detail: `${response.status} ${await reason(response)}` };
    }
    const type = response.headers.get('content-type') ?? '';
    if (!response.ok || !type.startsWith('text/event-stream')) {
      const detail = `${response.status} ${response.ok ? `not an event stream (${type})` : await reason(response)}`;
      const transient = response.status >= 500 || response.status === 408 || response.status === 429;
      return transient ? { detail } : { final: true, state: 'closed', detail };
    }
    this.set(stream, 'open', stream.lastEventId ? `resumed after ${stream.lastEventId}` : '');
    const parser = new EventStreamParser(stream.lastEventId, {
      retry: (ms) => { stream.retry = Math.max(100, ms); },
      event: (event) => this.receive(stream, parser, event),
    });
    try {
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.pushBytes(value);
      }
    } catch {
      // dropped (or stopped: follow() sees `until`)
    }
    return { opened: true, detail: 'the stream ended' };
  }

  receive(stream, parser, event) {
    stream.lastEventId = parser.lastEventId;
    let data;
    try { data = JSON.parse(event.data); } catch { data = { raw: event.data }; }
    if (event.type === 'reset') {
      if (data.reason !== 'shutdown') {
        parser.forgetId();
        stream.lastEventId = '';
      }
      this.set(stream, 'open', data.reason === 'shutdown' ? 'the server is shutting down' : `reset (${data.reason})`);
      this.add({ kind: 'reset', viewset: stream.name, id: '', data });
    } else if (KINDS.includes(event.type)) {
      this.add({ kind: event.type, viewset: stream.name, id: event.lastEventId, data });
    }
  }
}

/** The `detail` of an error answer, or its status text. */
async function reason(response) {
  const text = await response.text().catch(() => '');
  try {
    const detail = JSON.parse(text).detail;
    if (typeof detail === 'string') return detail;
  } catch { /* not JSON */ }
  return response.statusText || text.slice(0, 120);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms, signal) {
  return new Promise((resolve) => {
    if (signal.aborted) { resolve(); return; }
    const done = () => { clearTimeout(timer); signal.removeEventListener('abort', done); resolve(); };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}
