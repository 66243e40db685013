// Small DOM helpers: elements from data, tables, SVG, error views, downloads. No framework.

// The SVG namespace: an identifier, never requested.
const SVG_NS = 'http://www.w3.org/2000/svg';

/** h('tag.class', {attr, on: {event: fn}}, ...children): an element. Children may be strings, nodes, arrays, null. */
export function h(spec, props = {}, ...children) {
  const [tag, ...classes] = spec.split('.');
  const el = document.createElement(tag || 'div');
  if (classes.length) el.className = classes.join(' ');
  apply(el, props);
  append(el, children);
  return el;
}

/** An SVG element with attributes and children. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  append(el, children);
  return el;
}

function apply(el, props) {
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'on') for (const [event, fn] of Object.entries(value)) el.addEventListener(event, fn);
    else if (key === 'text') el.textContent = value;
    else if (key === 'value') el.value = value;
    else if (key === 'checked') el.checked = !!value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `el`. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A value as table text. */
export function show(value) {
  if (value === null || value === undefined) return '∅';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * A table of `rows` (objects) over `columns` ([{key, label, sortable}]). `sort` is {key, desc}; `onSort(key)` is
 * called when a sortable header is activated; `onRow(row)` makes rows selectable (click or Enter); `check`
 * ({isChecked(row), onCheck(row, checked)}) adds a checkbox before each row.
 */
export function table(columns, rows, { sort, onSort, onRow, selected, check } = {}) {
  const head = columns.map((c) => {
    const mark = sort && sort.key === c.key ? (sort.desc ? ' ▼' : ' ▲') : '';
    const aria = sort && sort.key === c.key ? (sort.desc ? 'descending' : 'ascending') : 'none';
    const label = c.sortable && onSort
      ? h('button', { type: 'button', title: `Sort by ${c.label}`, on: { click: () => onSort(c.key) } }, c.label + mark)
      : c.label;
    return h('th', { scope: 'col', 'aria-sort': c.sortable ? aria : null }, label);
  });
  if (check) head.unshift(h('th', { scope: 'col' }, h('span.muted', {}, '✓')));
  const box = (row) => {
    const input = h('input', { type: 'checkbox', 'aria-label': 'Select row', checked: check.isChecked(row) });
    input.addEventListener('click', (e) => e.stopPropagation());
    input.addEventListener('keydown', (e) => e.stopPropagation());
    input.addEventListener('change', () => check.onCheck(row, input.checked));
    return h('td', {}, input);
  };
  const body = rows.map((row) => {
    const tr = h('tr', onRow ? { class: 'clickable', tabindex: '0', 'aria-selected': String(selected === row) } : {},
      check ? box(row) : null,
      columns.map((c) => h('td', { class: c.numeric ? 'num' : null, title: show(row[c.key]) }, show(row[c.key]))));
    if (onRow) {
      tr.addEventListener('click', () => onRow(row));
      tr.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); onRow(row); } });
    }
    return tr;
  });
  if (!rows.length) body.push(h('tr', {}, h('td', { colspan: String(columns.length + (check ? 1 : 0)), class: 'muted' }, 'No rows.')));
  return h('div.table-wrap', {}, h('table', {}, h('thead', {}, h('tr', {}, head)), h('tbody', {}, body)));
}

/** A definition list of an object's keys and values. */
export function kv(object) {
  return h('dl.kv', {}, Object.entries(object).map(([k, v]) => [h('dt', { text: k }), h('dd', { text: show(v) })]));
}

/** The view of a failed response: status, the `detail` (a string or the 422 list) and `code`. */
export function errorView(response) {
  const body = response.body;
  const detail = body && typeof body === 'object' ? body.detail : body;
  const lines = Array.isArray(detail)
    ? detail.map((d) => `${(d.loc || []).join('.')}: ${d.msg}`)
    : [String(detail ?? response.statusText ?? '')];
  return h('div.alert', { role: 'alert' },
    h('strong', {}, `${response.status} `), lines.join('; '),
    body && body.code ? h('span.muted', {}, ` (${body.code})`) : null);
}

/** Saves `text` as a file named `name` (a client-side download of the current view). */
export function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** `rows` as CSV over `keys` (RFC 4180 quoting). */
export function toCsv(keys, rows) {
  const cell = (v) => {
    let text = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    // A text cell a spreadsheet would run as a formula gets a `'` in front (OWASP); numbers stay as they are.
    if (typeof v === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
    return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [keys.map(cell).join(','), ...rows.map((r) => keys.map((k) => cell(r[k])).join(','))].join('\r\n') + '\r\n';
}

/** A labelled control in a row. */
export function labelled(label, control) {
  if (!control.id) control.id = `f-${Math.random().toString(36).slice(2, 9)}`;
  return [h('label', { for: control.id }, label), control];
}
