/* StreamLab's cmi5 assignable unit (README, "Embedding": "cmi5"): cmi5.html?lesson=ID, launched
 * by an LMS with cmi5's launch parameters (cmi5 spec, 8.1). It takes the one-time auth token,
 * reads LMS.LaunchData, plays the lesson in a widget and reports it with the cmi5-defined
 * statements. Every problem is said in the page. No eval. */
(() => {
  'use strict';
  const ADL = 'http://adlnet.gov/expapi/verbs/';
  const CMI5 = 'https://w3id.org/xapi/cmi5/context/';
  const category = (name) => ({ objectType: 'Activity', id: `${CMI5}categories/${name}` });
  // Where this page is hosted names StreamLab's own extension, as xapi-base does for xapi.js.
  const RECEIPT = new URL('extensions/receipt', location.href).href;
  // The pass mark when the LMS sets none but moveOn needs a pass: xapi.js's default mastery.
  const MASTERY = 0.8;
  const VERSION = { 'X-Experience-API-Version': '1.0.3' };

  const $ = (id) => document.getElementById(id);
  const status = (text) => { $('status').textContent = text; };
  class Problem extends Error {}
  function problem(text) {
    $('problem').textContent = text;
    $('problem').hidden = false;
    status('Not recording');
  }

  /** The launch's query (cmi5 spec 8.1.1-8.1.5, plus this AU's own lesson and mode). */
  function launch() {
    const q = new URLSearchParams(location.search);
    const missing = ['endpoint', 'fetch', 'actor', 'registration', 'activityId', 'lesson'].filter((k) => !q.get(k));
    if (missing.length) {
      throw new Problem(`This lesson is opened from a course platform (cmi5), which adds what it needs to its address. This address lacks ${missing.join(', ')}: open the lesson again from your course.`);
    }
    const url = (name) => {
      try { return new URL(q.get(name)); } catch { throw new Problem(`The launch's ${name} is not a URL: "${q.get(name)}".`); }
    };
    const endpoint = url('endpoint');
    const checked = window.StreamLabXAPI.read({ 'xapi-base': location.href, actor: q.get('actor'), registration: q.get('registration') });
    if (checked.problems.length) throw new Problem(`The course platform launched this lesson wrongly: the launch's ${checked.problems.join('; ')}.`);
    const mode = q.get('mode') || 'lesson';
    if (!['lesson', 'quiz'].includes(mode)) throw new Problem(`mode must be lesson or quiz, not "${mode}" (in the AU's URL in cmi5.xml).`);
    return {
      endpoint: endpoint.href.endsWith('/') ? endpoint.href : `${endpoint.href}/`,
      fetchUrl: url('fetch').href,
      agent: q.get('actor'),
      actor: checked.settings.actor,
      registration: checked.settings.registration,
      activityId: q.get('activityId'),
      lesson: q.get('lesson'),
      mode,
    };
  }

  /** The auth token: the fetch URL answers once (spec 8.2), so a failure is not retried. */
  async function token(fetchUrl) {
    let response;
    try {
      response = await fetch(fetchUrl, { method: 'POST' });
    } catch {
      throw new Problem(`The course platform's token service (${fetchUrl}) could not be reached: check the connection, then open the lesson again from your course.`);
    }
    const body = await response.json().catch(() => ({}));
    if (!response.ok || typeof body['auth-token'] !== 'string') {
      const why = body['error-text'] ? `: ${body['error-text']}` : ` (HTTP ${response.status})`;
      throw new Problem(`The course platform refused this launch${why}. A launch can be used once; reloading the page uses it again. Open the lesson again from your course.`);
    }
    return `Basic ${body['auth-token']}`;
  }

  /** Requests to the LRS with the session's token; an answer other than 2xx is a Problem. */
  function lrs(s) {
    return async (path, init = {}) => {
      let response;
      try {
        response = await fetch(`${s.endpoint}${path}`, { ...init, headers: { ...VERSION, Authorization: s.auth, ...init.headers } });
      } catch {
        throw new Problem(`The learning record store at ${s.endpoint} could not be reached (or does not allow this page's origin, ${location.origin}, by CORS). Your work here is not being recorded.`);
      }
      if (!response.ok) {
        const text = await response.text().catch(() => '');
        throw new Problem(`The learning record store at ${s.endpoint} refused a request: HTTP ${response.status}${text ? ` ${text.slice(0, 200)}` : ''}. Your work here is not being recorded.`);
      }
      return response;
    };
  }

  /** LMS.LaunchData (spec 10.2.1): how this session is to run. */
  async function launchData(s) {
    const q = new URLSearchParams({ stateId: 'LMS.LaunchData', activityId: s.activityId, agent: s.agent, registration: s.registration });
    const data = await (await s.request(`activities/state?${q}`)).json().catch(() => null);
    if (!data || typeof data !== 'object' || !data.contextTemplate || !data.launchMode) {
      throw new Problem('The course platform\'s LMS.LaunchData document is missing or lacks launchMode and contextTemplate.');
    }
    if (!['Normal', 'Browse', 'Review'].includes(data.launchMode)) throw new Problem(`LMS.LaunchData's launchMode is "${data.launchMode}", not Normal, Browse or Review.`);
    return data;
  }

  /** Whether the LRS already has `verb` for this AU and registration (from an earlier session). */
  async function already(s, verb) {
    const q = new URLSearchParams({ agent: s.agent, verb: `${ADL}${verb}`, activity: s.activityId, registration: s.registration, limit: '1' });
    const found = await (await s.request(`statements?${q}`)).json();
    return Array.isArray(found.statements) && found.statements.length > 0;
  }

  /** A cmi5-defined statement: the context template, the registration, the cmi5 category
   * (and moveon for completed, passed, failed), the AU as object (spec 9.3, 9.6). */
  function statement(s, verb, result, extra = {}) {
    const context = JSON.parse(JSON.stringify(s.data.contextTemplate));
    context.registration = s.registration;
    context.contextActivities ??= {};
    const categories = [category('cmi5'), ...(['completed', 'passed', 'failed'].includes(verb) ? [category('moveon')] : [])];
    context.contextActivities.category = [...(context.contextActivities.category || []), ...categories];
    context.extensions = { ...context.extensions, ...extra };
    const made = {
      id: crypto.randomUUID(), actor: s.actor, verb: { id: `${ADL}${verb}`, display: { 'en-US': verb } },
      object: { objectType: 'Activity', id: s.activityId }, context, timestamp: new Date().toISOString(),
    };
    if (result) made.result = result;
    return made;
  }

  /** Sends statements one at a time, in the order made; keepalive lets terminated leave a page
   * being closed. */
  function sender(s) {
    let chain = Promise.resolve();
    return (verb, result, extra) => {
      const body = JSON.stringify(statement(s, verb, result, extra));
      chain = chain.then(() => s.request('statements', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, keepalive: true }));
      return chain;
    };
  }

  async function start() {
    const s = launch();
    $('title').textContent = `StreamLab: ${s.lesson}`;
    s.auth = await token(s.fetchUrl);
    s.request = lrs(s);
    s.data = await launchData(s);
    const send = sender(s);
    const began = Date.now();
    const took = () => window.StreamLabXAPI.duration(Date.now() - began);
    await send('initialized');
    const normal = s.data.launchMode === 'Normal';
    status('Loading the lesson…');

    let ended = false;
    const terminate = () => {
      if (ended) return null;
      ended = true;
      $('exit').disabled = true;
      return send('terminated', { duration: took() });
    };
    addEventListener('pagehide', () => { terminate()?.catch(() => {}); });
    $('exit').disabled = false;
    $('exit').addEventListener('click', async () => {
      status('Ending the session…');
      try {
        await terminate();
      } catch (error) {
        shown(error);
        return;
      }
      if (s.data.returnURL) location.assign(s.data.returnURL);
      else status('Session ended: you can close this window.');
    });

    const lab = StreamLab.create($('lab'), { mode: s.mode, lesson: s.lesson, loading: 'eager', layout: 'both' });
    lab.on('ready', () => status(normal ? 'Your work is recorded by your course.' : `${s.data.launchMode} mode: nothing is recorded.`));
    lab.on('progress', (e) => { if (!ended) status(`${e.detail.done} of ${e.detail.total} tasks done${normal ? ', recorded by your course' : ''}.`); });
    lab.on('lesson-complete', (e) => { if (normal && !ended) report(s, send, lab, e.detail, took).catch(shown); });
  }

  /** completed (no score), then passed or failed against the mastery score, each once per
   * registration: an earlier session's are looked up in the LRS, not sent again. */
  async function report(s, send, lab, d, took) {
    if (!(await already(s, 'completed'))) await send('completed', { completion: true, duration: took() });
    const needsPass = /Passed/.test(s.data.moveOn || '');
    const given = typeof s.data.masteryScore === 'number';
    if (!given && !needsPass) return;
    if ((await already(s, 'passed')) || (await already(s, 'failed'))) {
      status('Done. Your course already has this lesson\'s result for this attempt; it is not recorded again.');
      return;
    }
    const mastery = given ? s.data.masteryScore : MASTERY;
    const scaled = d.max ? Math.round((d.score / d.max) * 10000) / 10000 : 0;
    const success = scaled >= mastery;
    const result = { score: { scaled, raw: d.score, min: 0, max: d.max }, success, duration: took() };
    const receipt = await lab.getReceipt().catch(() => null);
    if (typeof receipt === 'string' && receipt) result.extensions = { [RECEIPT]: receipt };
    await send(success ? 'passed' : 'failed', result, given ? { [`${CMI5}extensions/masteryscore`]: mastery } : {});
    status(`Done: ${d.score} of ${d.max}, ${success ? 'passed' : 'not passed'} (${Math.round(mastery * 100)}% needed). Recorded by your course.`);
  }

  function shown(error) {
    if (error instanceof Problem) problem(error.message);
    else problem(`StreamLab could not run this lesson: ${(error && error.message) || error}`);
  }

  if (!window.StreamLabXAPI || !window.StreamLab) problem('StreamLab\'s scripts (xapi.js, embed.js) could not be loaded from this page\'s host.');
  else start().catch(shown);
})();
