// The text/event-stream format, parsed as a browser's EventSource parses it (WHATWG HTML, "Server-sent events"),
// for streams read with fetch (which, unlike EventSource, can send Authorization). Lines end in CRLF, LF or CR
// (a CR at the end of one chunk and an LF at the start of the next are one line end); a line starting with ':' is
// a comment; `field: value` drops one space after the colon; a line without a colon is a field with an empty
// value; `data` lines join with LF; an empty line dispatches; `id` persists across events (and connections) until
// another `id` changes it; `retry` takes digits only; unknown fields are ignored. The decoder drops a leading BOM.

export class EventStreamParser {
  /**
   * `lastEventId`: the id to start from (the previous connection's); `on.event({type, data, lastEventId})` for each
   * dispatched event, `on.retry(ms)` for a `retry` field, `on.comment(text)` for a comment line.
   */
  constructor(lastEventId = '', on = {}) {
    this.on = on;
    this.lastEventId = lastEventId; // committed at each dispatch: what a reconnection sends as Last-Event-ID
    this.idBuffer = lastEventId;
    this.type = '';
    this.data = [];
    this.rest = ''; // an unfinished line
    this.afterCR = false; // the last chunk ended with CR: an LF opening the next one ends nothing
    this.decoder = new TextDecoder('utf-8');
  }

  /** Feeds bytes (a Uint8Array chunk of the body); a UTF-8 sequence split between chunks is kept for the next. */
  pushBytes(bytes) {
    this.push(this.decoder.decode(bytes, { stream: true }));
  }

  /** Feeds decoded text. */
  push(text) {
    let buffer = this.rest + text;
    if (this.afterCR && buffer.length) {
      if (buffer[0] === '\n') buffer = buffer.slice(1);
      this.afterCR = false;
    }
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      this.line(buffer.slice(start, i));
      if (c === '\r') {
        if (i + 1 === buffer.length) this.afterCR = true;
        else if (buffer[i + 1] === '\n') i++;
      }
      start = i + 1;
    }
    this.rest = buffer.slice(start);
  }

  /** Forgets the id (after a `reset`: the ids before it no longer resume). */
  forgetId() {
    this.lastEventId = '';
    this.idBuffer = '';
  }

  line(line) {
    if (line === '') { this.dispatch(); return; }
    if (line[0] === ':') { this.on.comment?.(line.slice(1)); return; }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value[0] === ' ') value = value.slice(1);
    if (field === 'event') this.type = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id') { if (!value.includes('\0')) this.idBuffer = value; }
    else if (field === 'retry') { if (/^[0-9]+$/.test(value)) this.on.retry?.(Number(value)); }
  }

  dispatch() {
    this.lastEventId = this.idBuffer;
    const type = this.type || 'message';
    const data = this.data;
    this.type = '';
    this.data = [];
    if (!data.length) return; // no data line: nothing is dispatched (the id still counts)
    this.on.event?.({ type, data: data.join('\n'), lastEventId: this.lastEventId });
  }
}
