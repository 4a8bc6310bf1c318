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

/** Lesson markdown as the player draws it, from the engine's reading of it (blocks and
 * runs, streamlab_lessons::markdown): elements and text nodes, never HTML. */
export function rendered(blocks) {
  const runs = (list) => list.map((r) => (r.t === 'text' ? r.c : h(r.t === 'code' ? 'code' : r.t, {}, r.t === 'code' ? r.c : runs(r.c))));
  return blocks.map((b) => {
    if (b.t === 'paragraph') return h('p', {}, runs(b.c));
    if (b.t === 'list') return h(b.c.ordered ? 'ol' : 'ul', {}, b.c.items.map((item) => h('li', {}, runs(item))));
    return h('pre', {}, h('code', {}, b.c));
  });
}

/** A labelled input (`kind`: text, number, textarea, select with `options`) that calls
 * `change(value)` once the author is done with it (on change, not per key); with `preview`
 * (text → nodes), the text as the player will show it, redrawn as the author types. A number
 * field refuses what is not an integer there and then. */
export function field(label, value, change, { kind = 'text', options = [], hint = '', rows = 3, preview = null } = {}) {
  const id = `f${++fields}`;
  let input;
  if (kind === 'textarea') input = h('textarea', { id, rows, spellcheck: 'true' });
  else if (kind === 'select') input = h('select', { id }, options.map((o) => h('option', { value: o }, o)));
  else input = h('input', { id, type: kind === 'number' ? 'number' : 'text' });
  input.value = value ?? '';
  const note = h('small', { class: 'muted', id: `${id}-note` }, hint);
  if (hint) input.setAttribute('aria-describedby', note.id);
  input.addEventListener('change', () => {
    if (kind !== 'number') return change(input.value);
    const n = Number(input.value);
    if (input.value.trim() === '' || !Number.isSafeInteger(n)) {
      input.setAttribute('aria-invalid', 'true');
      note.textContent = `${input.value || 'Nothing'} is not a whole number: nothing was changed.`;
      return;
    }
    input.removeAttribute('aria-invalid');
    note.textContent = hint;
    change(n);
  });
  const shown = preview ? h('div', { class: 'md-preview', role: 'region', 'aria-label': `${label}: as the player shows it` }) : null;
  const draw = () => shown?.replaceChildren(...preview(input.value));
  if (shown) {
    input.addEventListener('input', draw);
    draw();
  }
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, note, shown);
}

/** Replaces an element's children, leaving out the absent ones (`null`, `false`). */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

/** Runs `draw`, which rebuilds `panel`, and puts the focus back on the element that had it,
 * found again by its id, its label or its text: a panel drawn anew after a click or a key
 * must not drop the author's place to the top of the page. */
export function keepFocus(panel, draw) {
  const had = document.activeElement;
  const inside = had && panel?.contains(had);
  const key = inside && {
    tag: had.tagName,
    // Fields' ids are made afresh with each drawing: those are found by their label.
    id: /^f\d+$/.test(had.id) ? '' : had.id,
    aria: had.getAttribute('aria-label'),
    label: had.labels?.[0]?.textContent ?? null,
    text: had.textContent,
  };
  draw();
  if (!key || (document.activeElement && document.activeElement !== document.body)) return;
  const same = (el) => {
    if (key.aria) return el.getAttribute('aria-label') === key.aria;
    if (key.label !== null) return el.labels?.[0]?.textContent === key.label;
    return el.textContent === key.text;
  };
  const found = (key.id && document.getElementById(key.id)) || [...panel.querySelectorAll(key.tag)].find(same);
  found?.focus();
}
