// The studio's DOM helpers: elements from tag, attributes and children (text is always text:
// lesson content never becomes HTML), and labelled form fields.

let fields = 0;

/** An element: `on*` attributes are listeners, `false`/`null` attributes are left out. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'value') el.value = v;
    else if (k === 'checked') el.checked = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** A labelled input (`kind`: text, number, textarea, select with `options`) that calls
 * `change(value)` once the author is done with it (on change, not per key). */
export function field(label, value, change, { kind = 'text', options = [], hint = '', rows = 3, name = '' } = {}) {
  const id = `f${++fields}`;
  let input;
  if (kind === 'textarea') input = h('textarea', { id, rows, spellcheck: 'true' });
  else if (kind === 'select') input = h('select', { id }, options.map((o) => h('option', { value: o }, o)));
  else input = h('input', { id, type: kind === 'number' ? 'number' : 'text' });
  if (name) input.name = name;
  input.value = value ?? '';
  input.addEventListener('change', () => change(kind === 'number' ? Number(input.value) : input.value));
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, hint ? h('small', { class: 'muted' }, hint) : null);
}

/** Replaces an element's children, leaving out the absent ones (`null`, `false`). */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}
