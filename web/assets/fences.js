/* StreamLab's code fences (README, "Docs sites: live consoles from code fences"): embed.js
 * loads this file when its own script tag has `data-fences`, and each code block of that
 * language (`streamlab` unless the attribute names another) becomes a widget. Its leading
 * `# key: value` lines are the widget's options, its other lines the setup. No eval. */
(() => {
  'use strict';
  const tag = document.querySelector('script[data-fences]');
  const language = (tag && tag.dataset.fences) || 'streamlab';
  // Where generators put a fence's language: `language-X` on the code (markdown-it, marked,
  // mdBook), also on a wrapper (MkDocs with superfences, Docusaurus); X itself on the pre
  // (pandoc, Quarto).
  const marked = `.${CSS.escape(`language-${language}`)}`;
  const FENCE = `${marked}, pre.${CSS.escape(language)}`;
  // What generators add inside a code block besides its text: copy buttons (mdBook's) and
  // Pygments' line numbers written inline.
  const CHROME = 'button, .linenos';
  const OPTION = /^#\s*([\w-]+)\s*:(.*)$/;
  const upgraded = new WeakSet();

  /** The block's text as written: highlighting spans add none, and Docusaurus ends each line
   * with a <br> where others keep the newline itself. */
  function text(node) {
    let out = '';
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) out += child.data;
      else if (child.nodeName === 'BR') out += '\n';
      else if (child.nodeType === Node.ELEMENT_NODE && !child.matches(CHROME)) out += text(child);
    }
    return out;
  }

  /** Options as create() takes them: the leading `# key: value` lines (blank lines and other
   * comments between them allowed), then every other line as `setup` (embed.js drops its `#`
   * comments). */
  function options(source) {
    const lines = source.split('\n');
    const raw = {};
    let first = 0;
    for (; first < lines.length; first++) {
      const line = lines[first].trim();
      const option = OPTION.exec(line);
      // Lower-cased as HTML does an attribute's name: `# Mode: lesson` is `mode`.
      if (option) raw[option[1].toLowerCase()] = option[2].trim();
      // A `#` line that is not `key: value` is a comment, among the options as in the setup.
      else if (line && !line.startsWith('#')) break;
    }
    const setup = lines.slice(first).filter((line) => line.trim());
    if (setup.length) raw.setup = raw.setup === undefined ? setup : [raw.setup, ...setup];
    return raw;
  }

  /** What a generator wrote for the fence around `pre`: the outermost element marked with its
   * language (Docusaurus marks the pre and a wrapper two levels up), then pandoc's and
   * Quarto's div.sourceCode and Quarto's copy-button scaffold around it. */
  function blockOf(pre) {
    let block = pre;
    for (let up = pre.parentElement && pre.parentElement.closest(marked); up; up = up.parentElement && up.parentElement.closest(marked)) block = up;
    for (const wrapper of ['div.sourceCode', '.code-copy-outer-scaffold']) {
      if (block.parentElement && block.parentElement.matches(wrapper)) block = block.parentElement;
    }
    return block;
  }

  /** Puts a widget where the fence `found` (an element FENCE matched) is. */
  function upgrade(found) {
    // The block's last code element: a line-number table's gutter comes before the code.
    const code = found.tagName === 'CODE' ? found : [...found.querySelectorAll('code')].pop() || found;
    const pre = code.closest('pre');
    // Inline code is no fence; a block is upgraded once, whichever of its marks is found.
    if (!pre || upgraded.has(pre)) return;
    upgraded.add(pre);
    const block = blockOf(pre);
    const lab = document.createElement('stream-lab');
    // create() checks every option, an unknown one too (an attribute embed.js does not know
    // is ignored), and a wrong one shows its error in the widget. It runs before the element
    // is in the page, so that the element does not make a widget of its own when connected.
    window.StreamLab.create(lab, options(text(code)));
    block.before(lab);
    // Hidden rather than removed: a framework that rendered the page (Docusaurus's React)
    // still owns the block, and the fence's text stays in the page.
    block.style.setProperty('display', 'none', 'important');
  }

  function scan(root) {
    if (root.matches(FENCE)) upgrade(root);
    for (const found of root.querySelectorAll(FENCE)) upgrade(found);
  }

  function start() {
    scan(document.documentElement);
    // Fences added later, such as a page that MkDocs Material's instant navigation or a
    // single-page app puts in: only the added subtrees are searched.
    new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes) if (node.nodeType === Node.ELEMENT_NODE) scan(node);
      }
    }).observe(document.documentElement, { childList: true, subtree: true });
  }

  // A block still being parsed may not have all its lines yet.
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
  else start();
})();
