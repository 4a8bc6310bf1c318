// The example course page's own script: logs every event the widgets raise (DOM events from
// the <stream-lab> elements, postMessage envelopes from the quiz iframe) and gives the iframe
// the height its widget reports, so the quiz is never cut off.
(() => {
  'use strict';
  const TYPES = ['ready', 'command', 'check', 'task-complete', 'quiz-answer', 'progress', 'lesson-complete', 'resize', 'error'];
  const list = document.getElementById('events');
  window.courseEvents = [];
  function log(from, type, detail) {
    window.courseEvents.push({ from, type, detail });
    if (type === 'resize') return; // recorded, not listed: there are many
    const item = document.createElement('li');
    item.textContent = `${from} ${type} ${JSON.stringify(detail)}`;
    list.append(item);
    item.scrollIntoView({ block: 'nearest' });
  }
  for (const type of TYPES) {
    document.addEventListener(type, (event) => {
      if (event.target instanceof Element && event.target.id) log(`#${event.target.id}`, type, event.detail);
    });
  }
  // The quiz frame: its origin is this page's, so that is where it may post.
  const quiz = document.getElementById('quiz');
  window.addEventListener('message', (event) => {
    const m = event.data;
    if (event.origin !== location.origin || event.source !== quiz.contentWindow) return;
    if (!m || m.source !== 'stream-lab' || m.v !== 1) return;
    log('#quiz', m.type, m.payload);
    if (m.type === 'resize' && m.payload.height > 0) quiz.style.height = `${m.payload.height}px`;
  });
  quiz.src = `${quiz.dataset.src}&origin=${encodeURIComponent(location.origin)}`;
})();
