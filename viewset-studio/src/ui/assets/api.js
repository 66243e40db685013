// Every request the page makes, same origin only. Studio's endpoints get the session's CSRF header (the cookie
// goes by itself: it is HttpOnly and limited to /studio and /ai); the application's own routes get the identity the
// developer chose ("Act as") as `Authorization: Bearer`, and never a Studio credential.

const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content ?? '';
export const CSRF = meta('studio-csrf');
export const AUTH = meta('studio-auth');
export const DEBUG = meta('studio-debug') === 'true';

const IDENTITY_KEY = 'studio.identity';

/** The bearer token the application's routes are called with ('' = anonymous). */
export function identity() {
  return sessionStorage.getItem(IDENTITY_KEY) || '';
}

export function setIdentity(token) {
  sessionStorage.setItem(IDENTITY_KEY, token.trim());
}

/**
 * Sends one request; never throws for an HTTP status. Returns {ok, status, statusText, headers, body, text, ms}:
 * `body` is the parsed JSON, or the text when the answer is not JSON.
 */
export async function send(url, { method = 'GET', body, headers = {}, studio = false, asIdentity = !studio } = {}) {
  const h = { Accept: 'application/json', ...headers };
  if (studio && CSRF) h['X-Studio-CSRF'] = CSRF;
  if (asIdentity && identity()) h.Authorization = `Bearer ${identity()}`;
  let payload = body;
  if (body !== undefined && typeof body !== 'string') {
    payload = JSON.stringify(body);
    h['Content-Type'] = 'application/json';
  } else if (typeof body === 'string') {
    h['Content-Type'] = h['Content-Type'] || 'application/json';
  }
  const started = performance.now();
  let response;
  try {
    response = await fetch(url, { method, headers: h, body: payload, credentials: 'same-origin', cache: 'no-store' });
  } catch (e) {
    return { ok: false, status: 0, statusText: 'network error', headers: new Headers(), body: { detail: String(e) }, text: '', ms: 0 };
  }
  const text = await response.text();
  let parsed = text;
  try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON: keep the text */ }
  return {
    ok: response.ok, status: response.status, statusText: response.statusText, headers: response.headers,
    body: parsed, text, ms: performance.now() - started,
  };
}

/** A Studio or /ai endpoint (session cookie + CSRF header; `asIdentity` adds the chosen identity too). */
export const studio = (path, options = {}) => send(path, { ...options, studio: true });

/** One of the application's own routes, as the chosen identity. */
export const app = (path, options = {}) => send(path, { ...options, studio: false, asIdentity: true });

/** A Studio GET that must succeed: its JSON body, or an Error carrying the response. */
export async function studioJson(path) {
  const r = await studio(path);
  if (!r.ok) {
    if (r.status === 401) location.reload(); // the session ended: the page shows the sign-in form
    throw Object.assign(new Error(`${path}: ${r.status}`), { response: r });
  }
  return r.body;
}

/** Calls an MCP tool through `/ai/tools/mcp` as the chosen identity; the JSON-RPC answer's result or error. */
export async function mcpCall(name, args) {
  const request = { jsonrpc: '2.0', id: Date.now(), method: 'tools/call', params: { name, arguments: args } };
  return studio('/ai/tools/mcp', {
    method: 'POST', body: request, asIdentity: true,
    headers: { Accept: 'application/json, text/event-stream' },
  });
}

/** A query string from [name, value] pairs, skipping empty values. */
export function query(pairs) {
  const params = new URLSearchParams();
  for (const [k, v] of pairs) if (v !== '' && v !== null && v !== undefined) params.append(k, String(v));
  const text = params.toString();
  return text ? `?${text}` : '';
}
