// accelopt dashboard (daemon/dashboard.hpp). Plain JavaScript, no framework.
// Every piece of data reaches the DOM as text (el() below appends strings as
// text nodes); the campaign report goes into a sandboxed frame.
'use strict';
(() => {
  const params = new URLSearchParams(location.search);
  const TOKEN = params.get('token') || '';        // sent as "Authorization: Bearer"
  const STREAM_S = params.get('stream_s') || '';  // the change feed's stream lifetime (default: the daemon's)
  const BEAT_MS = params.get('beat_ms') || '';    // its heartbeat interval (default: the daemon's)
  const TERMINAL = new Set(['completed', 'partial', 'failed', 'cancelled', 'budget_exhausted']);
  const view = document.getElementById('view');
  const live = document.getElementById('live');

  function api(path, opts) {
    const headers = {};
    if (TOKEN) headers.Authorization = 'Bearer ' + TOKEN;
    return fetch(path, Object.assign({ headers, cache: 'no-store' }, opts || {}));
  }
  async function getJson(path) {
    const r = await api(path);
    if (!r.ok) throw new Error(path + ': HTTP ' + r.status);
    return r.json();
  }

  // el('td', {class: 'num'}, 'text', childNode, ...): strings become text nodes.
  function el(tag, attrs, ...kids) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) n.setAttribute(k, String(v));
    for (const k of kids.flat()) {
      if (k === undefined || k === null) continue;
      n.append(typeof k === 'object' ? k : String(k));
    }
    return n;
  }
  const fmt = (x, d = 2) => (typeof x === 'number' && isFinite(x) ? x.toFixed(d) : '–');
  const when = (us) => (us ? new Date(us / 1000).toLocaleString() : '–');
  const campaignHref = (id) => '#/campaign/' + encodeURIComponent(id);
  const bankHref = (b) => '#/memory/' + encodeURIComponent(b);
  function stateTag(s) { return el('span', { class: 'state state-' + String(s).replace(/[^a-z_]/g, '') }, s); }
  function bar(done, total) {
    const pct = total > 0 ? Math.min(100, (100 * done) / total) : 0;
    const b = el('span', { class: 'bar' }, el('span', { style: 'width:' + pct.toFixed(1) + '%' }));
    return el('span', {}, b, done + '/' + total);
  }
  function progress(c) {
    let done = 0, total = 0;
    for (const p of c.problems || []) { done += p.iteration || 0; total += p.iterations || 0; }
    return { done, total };
  }
  function used(spent, cap, d) {
    return cap === undefined || cap === null ? fmt(spent, d) : fmt(spent, d) + ' / ' + fmt(cap, d);
  }

  // Runs `fn` now, or once more after the run in progress: no timers, so a
  // burst of changes costs at most two reads.
  function coalesced(fn) {
    let running = false, again = false;
    return async function kick() {
      if (running) { again = true; return; }
      running = true;
      try { do { again = false; await fn(); } while (again); } finally { running = false; }
    };
  }

  // The change feed (GET /v1/stream) read with fetch, so that it carries the
  // Authorization header; reconnects after the daemon ends a stream. Each
  // stream opened calls onChange(null) ("anything may have changed"): what
  // changed before it opened (between two streams, or between the page's
  // first read and the first stream) was told to nobody.
  function openFeed(campaign, onChange) {
    let closed = false, controller = null;
    const feed = { messages: 0, streams: 0, close() { closed = true; if (controller) controller.abort(); } };
    (async () => {
      while (!closed) {
        controller = new AbortController();
        let q = campaign ? '?campaign=' + encodeURIComponent(campaign) : '';
        if (STREAM_S) q += (q ? '&' : '?') + 'max_s=' + encodeURIComponent(STREAM_S);
        if (BEAT_MS) q += (q ? '&' : '?') + 'heartbeat_ms=' + encodeURIComponent(BEAT_MS);
        try {
          const r = await api('/v1/stream' + q, { signal: controller.signal });
          if (!r.ok || !r.body) throw new Error('HTTP ' + r.status);
          live.dataset.state = 'live'; live.textContent = 'live';
          live.dataset.streams = String(++feed.streams);
          onChange(null);
          const reader = r.body.getReader(), dec = new TextDecoder();
          let buf = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buf += dec.decode(value, { stream: true });
            let at;
            while ((at = buf.indexOf('\n\n')) >= 0) {
              const block = buf.slice(0, at); buf = buf.slice(at + 2);
              let type = 'message', data = '';
              for (const line of block.split('\n')) {
                if (line.startsWith('event:')) type = line.slice(6).trim();
                else if (line.startsWith('data:')) data += line.slice(5).trim();
              }
              if (type === 'change' && data) { feed.messages++; onChange(JSON.parse(data)); }
            }
          }
        } catch (e) {
          if (closed) break;
          live.dataset.state = 'reconnecting'; live.textContent = 'reconnecting (' + e.message + ')';
        }
        if (closed) break;
        await new Promise((res) => setTimeout(res, 1000));
      }
    })();
    return feed;
  }

  let current = null;  // {close()} of the view shown

  function campaignsView() {
    view.dataset.view = 'campaigns';
    const body = el('tbody');
    const note = el('p', { class: 'muted' });
    view.replaceChildren(el('h1', {}, 'Campaigns'), note,
      el('table', { id: 'campaigns' }, el('thead', {}, el('tr', {},
        ['campaign', 'state', 'progress', 'problems', 'cost (USD)', 'LLM calls', 'tokens', 'evaluations', 'started'].map((h) => el('th', {}, h)))), body));
    const refresh = coalesced(async () => {
      const j = await getJson('/v1/campaigns');
      const rows = (j.campaigns || []).slice().sort((a, b) => (b.started_at_us || 0) - (a.started_at_us || 0));
      body.replaceChildren(...rows.map((c) => {
        const pr = progress(c), b = c.budget || {}, s = c.spend || {};
        const problems = (c.problems || []).map((p) => el('div', {}, p.name + ' ' + p.iteration + '/' + p.iterations +
          (typeof p.speedup === 'number' ? ' · ' + fmt(p.speedup) + 'x' : '')));
        const waiting = (c.waiting || []).map((w) => el('div', { class: 'error' }, 'waiting for ' + w.provider));
        return el('tr', { 'data-campaign': c.id, 'data-state': c.state },
          el('td', {}, el('a', { href: campaignHref(c.id) }, c.id)),
          el('td', {}, stateTag(c.state), c.reason ? el('div', { class: 'muted' }, c.reason) : null, waiting),
          el('td', { 'data-done': pr.done, 'data-total': pr.total }, bar(pr.done, pr.total)),
          el('td', {}, problems),
          el('td', { class: 'num' }, used(s.cost_usd, b.max_cost_usd, 4)),
          el('td', { class: 'num', 'data-llm-calls': s.llm_calls || 0 }, used(s.llm_calls, b.max_llm_calls, 0)),
          el('td', { class: 'num' }, used(s.tokens, b.max_tokens, 0)),
          el('td', { class: 'num', 'data-evaluations': s.evaluations || 0 }, used(s.evaluations, b.max_evaluations, 0)),
          el('td', {}, when(c.started_at_us)));
      }));
      note.textContent = rows.length + ' campaign(s)';
    });
    refresh().catch(showError);
    const feed = openFeed('', (m) => { if (!m || m.campaign) refresh().catch(showError); });
    return feed;
  }

  function campaignView(id) {
    view.dataset.view = 'campaign';
    const cards = el('div', { class: 'cards', id: 'summary' });
    const problems = el('tbody');
    const timeline = el('ol', { class: 'timeline', id: 'timeline' });
    const frame = el('iframe', { class: 'report', id: 'report', sandbox: 'allow-same-origin', title: 'report' });
    const title = el('h1', {}, 'Campaign ', id);
    view.replaceChildren(title, cards,
      el('table', {}, el('thead', {}, el('tr', {},
        ['problem', 'status', 'iteration', 'baseline (us)', 'best (us)', 'speedup', '% of peak'].map((h) => el('th', {}, h)))), problems),
      el('h2', {}, 'Updates'), timeline, el('h2', {}, 'Report'), frame);
    let feed = null, last = '', reportShown = 0;
    const card = (k, v, attrs) => el('div', Object.assign({ class: 'card' }, attrs || {}), el('div', { class: 'k' }, k), el('div', { class: 'v' }, v));
    const refresh = coalesced(async () => {
      const c = await getJson('/v1/campaigns/' + encodeURIComponent(id));
      const pr = progress(c), b = c.budget || {}, s = c.spend || {};
      view.dataset.state = c.state;
      view.dataset.progress = pr.done + '/' + pr.total;
      cards.replaceChildren(
        card('state', stateTag(c.state), { id: 'state', 'data-state': c.state }),
        card('progress', bar(pr.done, pr.total), { id: 'progress', 'data-done': pr.done, 'data-total': pr.total }),
        card('cost (USD)', used(s.cost_usd, b.max_cost_usd, 4)),
        card('LLM calls', used(s.llm_calls, b.max_llm_calls, 0), { id: 'llm-calls', 'data-calls': s.llm_calls || 0 }),
        card('tokens', used(s.tokens, b.max_tokens, 0)),
        card('evaluations', used(s.evaluations, b.max_evaluations, 0)),
        card('in flight', c.in_flight === undefined ? '–' : JSON.stringify(c.in_flight)),
        card('started', when(c.started_at_us)));
      if (c.reason) cards.append(card('reason', c.reason));
      if (c.error) cards.append(card('error', c.error));
      for (const w of c.waiting || []) cards.append(card('waiting for ' + w.provider, w.error || '', { class: 'card error' }));
      problems.replaceChildren(...(c.problems || []).map((p) => el('tr', { 'data-problem': p.name },
        el('td', {}, p.name), el('td', {}, p.status), el('td', { class: 'num' }, p.iteration + '/' + p.iterations),
        el('td', { class: 'num' }, fmt(p.baseline_us)), el('td', { class: 'num' }, fmt(p.best_us)),
        el('td', { class: 'num' }, typeof p.speedup === 'number' ? fmt(p.speedup) + 'x' : '–'),
        el('td', { class: 'num' }, fmt(p.percent_of_peak)))));
      const line = c.state + ' · ' + pr.done + '/' + pr.total + ' iterations · ' + (s.llm_calls || 0) + ' LLM calls · ' + (s.evaluations || 0) + ' evaluations';
      if (line !== last) {
        last = line;
        timeline.append(el('li', { 'data-state': c.state, 'data-done': pr.done, 'data-evaluations': s.evaluations || 0,
          'data-llm-calls': s.llm_calls || 0 },
          new Date().toLocaleTimeString() + ' ' + line));
      }
      // The report grows with the campaign; keep the reader's place in it.
      const r = await api('/v1/campaigns/' + encodeURIComponent(id) + '/report.html');
      if (r.ok) {
        const html = await r.text();
        let y = 0;
        try { y = frame.contentWindow.scrollY; } catch (e) { y = 0; }
        frame.onload = () => { try { frame.contentWindow.scrollTo(0, y); } catch (e) { /* ignore */ } };
        frame.srcdoc = html;
        frame.dataset.renders = String(++reportShown);
      }
      if (feed) view.dataset.updates = String(feed.messages);
      if (TERMINAL.has(c.state) && feed) { feed.close(); feed = null; live.dataset.state = 'done'; live.textContent = 'campaign ended'; }
    });
    feed = openFeed(id, (m) => { if (!m || m.campaign === id) refresh().catch(showError); });
    refresh().catch(showError);
    return { close() { if (feed) feed.close(); } };
  }

  function memoryView(bank) {
    view.dataset.view = bank ? 'bank' : 'memory';
    const refresh = coalesced(async () => {
      if (!bank) {
        const j = await getJson('/v1/memory');
        const banks = el('tbody', {}, (j.banks || []).map((b) => el('tr', { 'data-bank': b.bank },
          el('td', {}, el('a', { href: bankHref(b.bank) }, b.bank)), el('td', { class: 'num' }, b.generation),
          el('td', { class: 'num' }, b.items), el('td', { class: 'num' }, b.retired), el('td', { class: 'num' }, b.tainted),
          el('td', {}, (b.campaigns || []).join(', ')), el('td', {}, b.redistilling ? 'yes' : ''))));
        const ps = el('tbody', {}, (j.problem_scope || []).map((p) => el('tr', {},
          el('td', {}, el('a', { href: campaignHref(p.campaign) }, p.campaign)), el('td', {}, p.problem),
          el('td', { class: 'num' }, p.items), el('td', { class: 'num' }, p.credit), el('td', { class: 'num' }, p.iteration))));
        view.replaceChildren(el('h1', {}, 'Memory banks'),
          el('table', { id: 'banks' }, el('thead', {}, el('tr', {}, ['bank', 'generation', 'items', 'retired', 'tainted', 'campaigns', 're-distilling'].map((h) => el('th', {}, h)))), banks),
          el('h2', {}, 'Problem-scope memory (inside campaigns)'),
          el('table', {}, el('thead', {}, el('tr', {}, ['campaign', 'problem', 'items', 'credit', 'iteration'].map((h) => el('th', {}, h)))), ps));
        return;
      }
      const b = await getJson('/v1/memory/' + encodeURIComponent(bank));
      const rows = (b.items || []).slice().sort((x, y) => (y.credit || 0) - (x.credit || 0)).map((i) => el('tr', { 'data-item': i.id },
        el('td', {}, el('strong', {}, i.title || '(untitled)'), i.retired ? el('span', { class: 'tag retired' }, 'retired') : null,
          (i.tainted_by || []).length ? el('span', { class: 'tag tainted' }, 'tainted') : null,
          el('div', {}, i.description || ''),
          i.slow_snippet ? el('pre', { class: 'snippet' }, i.slow_snippet) : null,
          i.fast_snippet ? el('pre', { class: 'snippet' }, i.fast_snippet) : null),
        el('td', { class: 'num' }, i.credit), el('td', {}, i.kind || ''),
        el('td', {}, el('div', {}, i.campaign ? el('a', { href: campaignHref(i.campaign) }, i.campaign) : ''),
          el('div', { class: 'muted' }, [i.problem, i.iteration !== undefined ? 'iteration ' + i.iteration : null, i.source].filter(Boolean).join(' · ')),
          i.retired_reason ? el('div', { class: 'error' }, i.retired_reason) : null),
        el('td', { class: 'num' }, typeof i.speedup === 'number' ? fmt(i.speedup) + 'x' : '–'),
        el('td', { class: 'num' }, i.generation)));
      view.replaceChildren(el('h1', {}, 'Memory bank ', bank),
        el('p', { class: 'muted' }, 'generation ' + b.generation + ' of ' + JSON.stringify(b.generations || []) + ' · version ' + b.version),
        el('table', { id: 'items' }, el('thead', {}, el('tr', {}, ['item', 'credit', 'kind', 'provenance', 'speedup', 'generation'].map((h) => el('th', {}, h)))),
          el('tbody', {}, rows)));
    });
    refresh().catch(showError);
    return openFeed('', (m) => { if (!m || (m.bank && (!bank || m.bank === bank))) refresh().catch(showError); });
  }

  function showError(e) { view.append(el('p', { class: 'error', id: 'error' }, String(e && e.message ? e.message : e))); }

  function route() {
    if (current) current.close();
    const h = decodeURIComponent(location.hash.replace(/^#\/?/, ''));
    if (h.startsWith('campaign/')) current = campaignView(h.slice(9));
    else if (h === 'memory') current = memoryView('');
    else if (h.startsWith('memory/')) current = memoryView(h.slice(7));
    else current = campaignsView();
  }
  window.addEventListener('hashchange', route);
  route();
})();
