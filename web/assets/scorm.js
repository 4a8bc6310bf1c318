/* StreamLab's SCORM launch page (README, "Embedding": "SCORM"): a SCO page written by
 * `streamlab package scorm` names its lesson, mode, SCORM version and pass mark in
 * <meta name="streamlab-sco">. It finds the LMS's API, resumes the attempt kept in
 * cmi.suspend_data (the receipt), plays the lesson in a widget and reports it in the
 * version's cmi.* names. Every error the LMS returns is shown in the page. No eval. */
(() => {
  'use strict';
  const $ = (id) => document.getElementById(id);
  $('stuck')?.remove();
  const sco = new URLSearchParams(document.querySelector('meta[name="streamlab-sco"]')?.content || '');
  const v12 = sco.get('scorm') === '1.2';
  // The two versions' names for the same things (SCORM 1.2 RTE 3.4; SCORM 2004 RTE 4.2).
  const N = v12 ? {
    api: 'API', other: 'API_1484_11', Initialize: 'LMSInitialize', Terminate: 'LMSFinish', GetValue: 'LMSGetValue', SetValue: 'LMSSetValue',
    Commit: 'LMSCommit', GetLastError: 'LMSGetLastError', GetErrorString: 'LMSGetErrorString', GetDiagnostic: 'LMSGetDiagnostic',
    name: 'cmi.core.student_name', entry: 'cmi.core.entry', mode: 'cmi.core.lesson_mode', location: 'cmi.core.lesson_location',
    raw: 'cmi.core.score.raw', min: 'cmi.core.score.min', max: 'cmi.core.score.max', time: 'cmi.core.session_time', exit: 'cmi.core.exit',
    mastery: 'cmi.student_data.mastery_score', response: 'student_response', when: 'time', wrong: 'wrong', done: '',
  } : {
    api: 'API_1484_11', other: 'API', Initialize: 'Initialize', Terminate: 'Terminate', GetValue: 'GetValue', SetValue: 'SetValue',
    Commit: 'Commit', GetLastError: 'GetLastError', GetErrorString: 'GetErrorString', GetDiagnostic: 'GetDiagnostic',
    name: 'cmi.learner_name', entry: 'cmi.entry', mode: 'cmi.mode', location: 'cmi.location',
    raw: 'cmi.score.raw', min: 'cmi.score.min', max: 'cmi.score.max', time: 'cmi.session_time', exit: 'cmi.exit',
    mastery: 'cmi.scaled_passing_score', response: 'learner_response', when: 'timestamp', wrong: 'incorrect', done: 'normal',
  };
  const VERSION = v12 ? 'SCORM 1.2' : 'SCORM 2004';
  // cmi.suspend_data's size: 1.2's CMIString4096, 2004 4th edition's SPM of 64,000.
  const LIMIT = v12 ? 4096 : 64000;

  const status = (text) => { $('status').textContent = text; };
  const problems = [];
  function problem(text) {
    console.error(`StreamLab SCORM: ${text}`);
    if (problems.includes(text)) return;
    problems.push(text);
    $('problem').textContent = problems.slice(-4).join('\n');
    $('problem').hidden = false;
  }
  function warn(text) {
    console.warn(`StreamLab SCORM: ${text}`);
    $('warning').textContent = text;
    $('warning').hidden = false;
  }

  /** The ADL API discovery algorithm: this window's parents (at most 500 up), then the
   * opener's. A parent of another origin cannot be read and is passed over. */
  function find(name) {
    const scan = (w) => {
      for (let i = 0; w && i < 500; i++) {
        try { if (w[name]) return w[name]; } catch { /* another origin */ }
        if (w.parent === w) break;
        w = w.parent;
      }
      return null;
    };
    return scan(window) || (window.opener ? scan(window.opener) : null);
  }

  /** The LMS's API, its errors said in the page. `optional` reads may be unimplemented. */
  function lms(api) {
    const error = (what) => {
      const code = String(api[N.GetLastError]());
      if (code === '0' || code === '') return false;
      const diagnostic = String(api[N.GetDiagnostic](code) || '');
      const said = String(api[N.GetErrorString](code) || '');
      problem(`The course platform refused ${what}: error ${code} ${said}${diagnostic && diagnostic !== said ? ` (${diagnostic})` : ''}. Your work may not be recorded in full.`);
      return true;
    };
    return {
      call: (method, what) => String(api[N[method]]('')) === 'true' || (error(what), false),
      get: (name, optional) => {
        const value = String(api[N.GetValue](name) ?? '');
        if (optional) api[N.GetLastError]();
        else error(`to read ${name}`);
        return value;
      },
      set: (name, value) => String(api[N.SetValue](name, String(value))) === 'true' || (error(`${name} = "${String(value).slice(0, 60)}"`), false),
    };
  }

  /** Session time: 1.2's HHHH:MM:SS.SS, 2004's ISO 8601 duration (xapi.js writes it). */
  function elapsed(ms) {
    if (!v12) return window.StreamLabXAPI.duration(ms);
    const cs = Math.max(0, Math.round(ms / 10));
    const pad = (n) => String(n).padStart(2, '0');
    return `${pad(Math.floor(cs / 360000))}:${pad(Math.floor(cs / 6000) % 60)}:${pad(Math.floor(cs / 100) % 60)}.${pad(cs % 100)}`;
  }

  /** A quiz answer as an interaction's type and response, in the version's format: 2004
   * takes xAPI's (which copies it), 1.2 single characters 0-9a-z, joined by commas. */
  function answer(d) {
    const [type, response] = window.StreamLabXAPI.interaction(d);
    if (!v12 || !['choice', 'sequencing'].includes(type)) return [type, response.slice(0, v12 ? 255 : 250)];
    return [type, response.split('[,]').map((id) => Number(id.split('-')[1]).toString(36)).join(',')];
  }

  function start() {
    const lesson = sco.get('lesson');
    const mode = sco.get('mode') || 'lesson';
    const api = find(N.api);
    let s = null;
    if (!api) {
      const other = find(N.other) ? ` It offers the other version's API: import the ${v12 ? 'SCORM 2004' : 'SCORM 1.2'} package instead.` : '';
      problem(`No ${VERSION} course platform (LMS) was found around this page, so nothing you do here is saved: open the lesson from your course.${other}`);
    } else {
      s = lms(api);
      if (!s.call('Initialize', 'to start this lesson')) s = null;
    }
    const began = Date.now();
    const read = (name, optional) => (s ? s.get(name, optional) : '');
    const how = read(N.mode, true) || 'normal';
    // Review and browse show the attempt without changing what the LMS holds of it.
    const records = !!s && how === 'normal';
    const set = (name, value) => records && s.set(name, value);
    // 1.2 gives "Last, First".
    const learner = read(N.name, true).split(',').map((part) => part.trim()).reverse().join(' ');
    // 2004 answers error 403 (not initialized) for an attempt that has saved nothing yet.
    const saved = read('cmi.suspend_data', true);
    let mastery = Number(sco.get('mastery') || 0.8);
    const given = read(N.mastery, true);
    if (given !== '' && Number.isFinite(Number(given))) mastery = v12 ? Number(given) / 100 : Number(given);
    if (records) {
      if (v12 && ['', 'not attempted'].includes(read('cmi.core.lesson_status', true))) set('cmi.core.lesson_status', 'incomplete');
      if (!v12 && ['', 'unknown', 'not attempted'].includes(read('cmi.completion_status', true))) set('cmi.completion_status', 'incomplete');
      // Until the lesson is done the LMS keeps the attempt (and suspend_data) for a return.
      set(N.exit, 'suspend');
    }

    const lab = StreamLab.create($('lab'), { mode, lesson, loading: 'eager', layout: 'both' });
    let total = 0;
    let finished = false;
    let ended = false;
    let kept = saved;

    /** suspend_data: the receipt, whole or not at all (a cut receipt cannot be read). */
    let saving = null;
    let again = false;
    let commit = false;
    function save(andCommit) {
      if (!records || ended) return;
      commit ||= andCommit;
      if (saving) { again = true; return; }
      saving = (async () => {
        do {
          again = false;
          const token = await lab.getReceipt().catch((error) => { problem(`This attempt could not be written down to save it: ${error.message}`); return null; });
          if (!token || ended || token === kept) continue;
          if (token.length > LIMIT) {
            warn(`This attempt's record is now ${token.length.toLocaleString('en')} characters, more than the ${LIMIT.toLocaleString('en')} ${VERSION} lets a course platform keep, so it is no longer saved for a return: your score and progress still are. Coming back starts from the last point that fit${v12 ? ' (a SCORM 2004 package of this lesson keeps 64,000)' : ''}.`);
            continue;
          }
          if (set('cmi.suspend_data', token)) kept = token;
        } while (again);
        if (commit && !ended) { commit = false; s.call('Commit', 'to save your progress'); }
      })().finally(() => { saving = null; });
    }

    function score(d) {
      total = d.total;
      if (v12) {
        // 1.2's raw is what the LMS compares with the mastery score: a percentage.
        set(N.raw, d.max ? Math.round((d.score / d.max) * 10000) / 100 : 0);
        set(N.min, 0);
        set(N.max, 100);
      } else {
        set(N.raw, d.score);
        set(N.min, 0);
        set(N.max, d.max);
        set('cmi.score.scaled', d.max ? Math.round((d.score / d.max) * 10000) / 10000 : 0);
        set('cmi.progress_measure', d.total ? Math.round((d.done / d.total) * 10000) / 10000 : 0);
      }
    }
    const place = (task) => { if (total) set(N.location, `task ${Math.min(task, total - 1) + 1} of ${total}`); };

    function complete(d) {
      const scaled = d.max ? d.score / d.max : 0;
      const passed = scaled >= mastery;
      finished = true;
      if (v12) set('cmi.core.lesson_status', passed ? 'passed' : 'failed');
      else {
        set('cmi.completion_status', 'completed');
        set('cmi.success_status', passed ? 'passed' : 'failed');
      }
      set(N.exit, N.done);
      const recorded = records ? ' Recorded by your course.' : '';
      status(`Done: ${d.score} of ${d.max}, ${passed ? 'passed' : 'not passed'} (${Math.round(mastery * 100)}% needed).${recorded}`);
    }

    const who = learner ? ` for ${learner}` : '';
    const recording = s ? (records ? `Your work is recorded by your course${who}.` : `${how[0].toUpperCase()}${how.slice(1)} mode: nothing is recorded.`) : 'Not recording.';
    lab.on('ready', async (e) => {
      total = e.detail.tasks;
      if (!saved.startsWith('SL1.')) { status(recording); place(0); return; }
      status('Restoring your saved work…');
      try {
        const at = await lab.resume(saved);
        place(at.task);
        // A finished attempt opened again (an LMS may keep it): it stays finished.
        if (at.total && at.done === at.total) complete(at);
        else status(`${recording} Resumed: ${at.done} of ${at.total} tasks done.`);
      } catch (error) {
        problem(`Your saved work could not be restored (${error.message}), so the lesson starts over.`);
        status(recording);
      }
    });
    lab.on('progress', (e) => { score(e.detail); if (!finished) status(`${e.detail.done} of ${e.detail.total} tasks done. ${recording}`); });
    lab.on('quiz-answer', (e) => {
      const d = e.detail;
      place(d.task);
      if (!records) return;
      // Each answer is a new interaction (1.2's are write-only; 2004 journals them too).
      const n = Number(s.get('cmi.interactions._count', true)) || 0;
      const at = new Date();
      const [type, response] = answer(d);
      const field = (name, value) => set(`cmi.interactions.${n}.${name}`, value);
      field('id', v12 ? `${lesson}.task-${d.lessonTask}` : `urn:streamlab:${lesson}:task-${d.lessonTask}`);
      field('type', type);
      field(N.response, response);
      field('result', d.correct ? 'correct' : N.wrong);
      field('weighting', 1);
      field(N.when, v12 ? at.toTimeString().slice(0, 8) : at.toISOString());
      save(false);
    });
    lab.on('task-complete', (e) => { place(e.detail.task + 1); save(true); });
    lab.on('lesson-complete', (e) => { complete(e.detail); save(true); });
    lab.on('command', () => save(false));
    lab.on('error', (e) => problem(`The lesson reported a problem: ${e.detail.message}`));

    // Hidden may be the last moment a phone's page gets: what is set so far is committed.
    document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden' && records && !ended) s.call('Commit', 'to save your progress'); });
    addEventListener('pagehide', () => {
      if (!s || ended) return;
      ended = true;
      set(N.time, elapsed(Date.now() - began));
      if (records) s.call('Commit', 'to save your progress');
      s.call('Terminate', 'to end this session');
    });
  }

  if (!window.StreamLab || !window.StreamLabXAPI) problem('StreamLab\'s scripts (embed.js, xapi.js) could not be loaded, so the lesson cannot start.');
  else start();
})();
