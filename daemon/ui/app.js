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
  // Iterations completed: a problem that ended counts all of its
  // iterations, a running one those before the one in progress (so a
  // campaign that has not done any work shows 0, not 1 per problem).
  function progress(c) {
    let done = 0, total = 0;
    for (const p of c.problems || []) {
      const t = p.iterations || 0;
      done += p.status && p.status !== 'running' ? t : Math.max(0, (p.iteration || 0) - 1);
      total += t;
    }
    return { done, total };
  }
  // One unit per quantity: latencies as the report writes them.
  function micros(us) {
    if (typeof us !== 'number' || !isFinite(us) || us <= 0) return '–';
    if (us >= 1e6) return (us / 1e6).toFixed(3) + ' s';
    if (us >= 1e3) return (us / 1e3).toFixed(3) + ' ms';
    return us.toFixed(2) + ' µs';
  }
  function duration(s) {
    if (typeof s !== 'number' || !isFinite(s)) return '–';
    if (s < 60) return s.toFixed(1) + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min ' + Math.round(s % 60) + ' s';
    return Math.floor(s / 3600) + ' h ' + Math.round((s % 3600) / 60) + ' min';
  }
  const candidateHref = (id, cid) => '#/campaign/' + encodeURIComponent(id) + '/candidate/' + encodeURIComponent(cid);
  // The headline speedup (workflows/report.hpp): the final interleaved
  // re-measurement against the baseline, with its ~95% interval and noisy flag.
  function speedupText(p) {
    if (typeof p.speedup !== 'number') return '–';
    let t = fmt(p.speedup) + 'x';
    if (typeof p.speedup_low === 'number' && typeof p.speedup_high === 'number') t += ' [' + fmt(p.speedup_low) + '–' + fmt(p.speedup_high) + ']';
    if (p.speedup_noisy === true) t += ' NOISY';
    // Not yet the final re-measurement: the best so far, from separate runs.
    if (p.speedup_source === 'separate') t += p.status === 'running' ? ' (so far)' : ' (separate runs)';
    if (p.improvement === 'within_noise') t += ' (noise)';
    return t;
  }
  function calibrationCard(w) {
    return 'cpu evaluations wait for a calibration since ' + when(w.since_us) + ' (' + w.attempts + ' attempts' +
      (w.next_attempt_us ? ', next ' + when(w.next_attempt_us) : ', measuring now') + '): ' + (w.reason || '') + '. ' + (w.fix || '');
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
    const pick = el('p', { class: 'muted' }, 'Compare two campaigns: ', el('a', { href: '#/compare', id: 'compare-link' }, 'compare'));
    view.replaceChildren(el('h1', {}, 'Campaigns'), note, pick,
      el('table', { id: 'campaigns' }, el('thead', {}, el('tr', {},
        ['campaign', 'state', 'progress', 'problems', 'cost (USD)', 'LLM calls', 'tokens', 'evaluations', 'started'].map((h) => el('th', {}, h)))), body));
    const refresh = coalesced(async () => {
      const j = await getJson('/v1/campaigns');
      const rows = (j.campaigns || []).slice().sort((a, b) => (b.started_at_us || 0) - (a.started_at_us || 0));
      body.replaceChildren(...rows.map((c) => {
        const pr = progress(c), b = c.budget || {}, s = c.spend || {};
        const problems = (c.problems || []).map((p) => el('div', {}, p.name + ' ' + p.iteration + '/' + p.iterations +
          (typeof p.speedup === 'number' ? ' · ' + speedupText(p) : '')));
        const waiting = (c.waiting || []).map((w) => el('div', { class: 'error' }, 'waiting for ' + w.provider + ' since ' + when(w.since_us)));
        if (c.calibration) waiting.push(el('div', { class: 'error' }, 'waiting for the cpu calibration since ' + when(c.calibration.since_us)));
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
      note.textContent = rows.length ? rows.length + ' campaign(s)' : 'No campaigns yet: submit one with acceloptctl submit SPEC.';
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
    const frame = el('iframe', { class: 'report', id: 'report', sandbox: 'allow-same-origin', title: 'report', scrolling: 'no' });
    const title = el('h1', {}, 'Campaign ', id);
    const candidates = el('tbody');
    view.replaceChildren(title, cards,
      el('table', { id: 'problems' }, el('thead', {}, el('tr', {},
        ['problem', 'status', 'iteration', 'baseline', 'best (re-measured)', 'speedup (final, side by side)', '% of peak'].map((h) => el('th', {}, h)))), problems),
      el('h2', {}, 'Updates'), timeline,
      el('h2', {}, 'Candidates'), el('table', { id: 'candidates' }, el('thead', {}, el('tr', {},
        ['problem', 'it', 'candidate', 'result', 'latency (its own measurement)'].map((h) => el('th', {}, h)))), candidates),
      el('h2', {}, 'Report'), frame);
    let feed = null, last = '', reportShown = 0;
    const card = (k, v, attrs) => el('div', Object.assign({ class: 'card' }, attrs || {}), el('div', { class: 'k' }, k), el('div', { class: 'v' }, v));
    const refresh = coalesced(async () => {
      const c = await getJson('/v1/campaigns/' + encodeURIComponent(id));
      const pr = progress(c), b = c.budget || {}, s = c.spend || {};
      view.dataset.state = c.state;
      view.dataset.progress = pr.done + '/' + pr.total;
      let rep = null;
      try { rep = await getJson('/v1/campaigns/' + encodeURIComponent(id) + '/report'); } catch (e) { rep = null; }
      const ended = rep && rep.ended_at_us ? rep.ended_at_us : null;
      const inFlight = c.in_flight && typeof c.in_flight === 'object'
        ? Object.entries(c.in_flight).map(([k, v]) => k + ' ' + v).join(', ') || 'nothing'
        : (c.in_flight === undefined ? '–' : String(c.in_flight));
      cards.replaceChildren(
        card('state', stateTag(c.state), { id: 'state', 'data-state': c.state }),
        card('progress (iterations done)', bar(pr.done, pr.total), { id: 'progress', 'data-done': pr.done, 'data-total': pr.total }),
        card('started', when(c.started_at_us), { id: 'started' }),
        card('ended', ended ? when(ended) : (TERMINAL.has(c.state) ? '–' : 'still running'), { id: 'ended' }),
        card('duration', duration(rep ? rep.duration_s : undefined), { id: 'duration' }),
        card('cost (USD)', used(s.cost_usd, b.max_cost_usd, 4), { id: 'cost' }),
        card('LLM calls', used(s.llm_calls, b.max_llm_calls, 0), { id: 'llm-calls', 'data-calls': s.llm_calls || 0 }),
        card('tokens', used(s.tokens, b.max_tokens, 0)),
        card('evaluations', used(s.evaluations, b.max_evaluations, 0)),
        card('in flight', inFlight));
      if (!(s.evaluations || 0) && !TERMINAL.has(c.state)) {
        cards.append(card('now', c.calibration ? 'waiting for the cpu calibration'
          : 'measuring the baselines (the first evaluation of each problem)', { id: 'waiting-state', class: 'card wide' }));
      }
      if (c.reason) cards.append(card('reason', c.reason, { class: 'card wide' }));
      if (c.error) cards.append(card('error', c.error, { class: 'card wide error' }));
      const limit = (c.budget || {}).max_provider_wait_s;
      for (const w of c.waiting || []) {
        cards.append(card('waiting for provider ' + w.provider,
          'since ' + when(w.since_us) + ' · ' + w.calls + ' call(s) held, probed again with backoff' +
          (typeof limit === 'number' ? ' · gives up ' + when(w.since_us + limit * 1e6) : ' · no wait limit (max_provider_wait_s)') +
          ' · ' + (w.error || ''), { class: 'card wide error', 'data-waiting': w.provider }));
      }
      if (c.calibration) cards.append(card('waiting for the cpu calibration', calibrationCard(c.calibration), { class: 'card wide error', id: 'calibration' }));
      problems.replaceChildren(...(c.problems || []).map((p) => el('tr', { 'data-problem': p.name },
        el('td', {}, p.name), el('td', {}, p.status), el('td', { class: 'num' }, p.iteration + '/' + p.iterations),
        el('td', { class: 'num' }, p.baseline_us ? micros(p.baseline_us) : (p.status === 'running' ? 'measuring…' : '–')),
        el('td', { class: 'num' }, micros(p.best_us)),
        el('td', { class: 'num speedup', 'data-speedup': typeof p.speedup === 'number' ? p.speedup : null }, speedupText(p)),
        el('td', { class: 'num' }, fmt(p.percent_of_peak)))));
      const line = c.state + ' · ' + pr.done + '/' + pr.total + ' iterations · ' + (s.llm_calls || 0) + ' LLM calls · ' + (s.evaluations || 0) + ' evaluations';
      if (line !== last) {
        last = line;
        // When the daemon recorded it (the last event's time), not when this page read it.
        const at = (rep && (rep.ended_at_us || rep.last_event_at_us)) || Date.now() * 1000;
        timeline.append(el('li', { 'data-state': c.state, 'data-done': pr.done, 'data-evaluations': s.evaluations || 0,
          'data-llm-calls': s.llm_calls || 0 },
          new Date(at / 1000).toLocaleTimeString() + ' ' + line));
      }
      try {
        const cs = await getJson('/v1/campaigns/' + encodeURIComponent(id) + '/candidates');
        const list = cs.candidates || [];
        candidates.replaceChildren(...(list.length ? list.map((x) => el('tr', { 'data-candidate': x.id },
          el('td', {}, x.problem), el('td', { class: 'num' }, x.iteration),
          el('td', {}, el('a', { href: candidateHref(id, x.id), class: 'candidate-link' }, x.id)),
          el('td', { class: 'reason' }, x.ok ? (x.evaluated ? (x.correct ? 'correct' : x.status) : 'evaluating…') : x.failure),
          el('td', { class: 'num' }, x.correct ? micros(x.latency_us) : '–')))
          : [el('tr', {}, el('td', { colspan: 5, class: 'muted' }, 'No candidates yet: the planner and executor calls come after the baselines are measured.'))]));
      } catch (e) { /* the candidates list is optional */ }
      // The report grows with the campaign; keep the reader's place in it.
      const r = await api('/v1/campaigns/' + encodeURIComponent(id) + '/report.html');
      if (r.ok) {
        const html = await r.text();
        let y = 0;
        try { y = frame.contentWindow.scrollY; } catch (e) { y = 0; }
        // The report is part of the page (no scrollbar of its own): the frame takes its height.
        frame.onload = () => {
          try {
            frame.style.height = (frame.contentDocument.documentElement.scrollHeight + 20) + 'px';
            frame.contentWindow.scrollTo(0, y);
          } catch (e) { /* ignore */ }
        };
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

  // The lineage around a candidate as SVG: its parent, itself, its children.
  function lineageSvg(id, c) {
    const NS = 'http://www.w3.org/2000/svg';
    const node = (tag, attrs, text) => {
      const n = document.createElementNS(NS, tag);
      for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
      if (text !== undefined) n.textContent = text;
      return n;
    };
    const kids = c.children || [];
    const width = Math.max(520, 200 * Math.max(1, kids.length) + 40), height = 250;
    const svg = node('svg', { width, height, viewBox: '0 0 ' + width + ' ' + height, id: 'lineage', role: 'img' });
    const box = (x, y, label, sub, href, cls) => {
      const g = node('g', { class: 'node ' + cls });
      g.append(node('rect', { x: x - 90, y: y - 22, width: 180, height: 44, rx: 6 }));
      g.append(node('text', { x, y: y - 4, 'text-anchor': 'middle' }, label.length > 26 ? '…' + label.slice(-25) : label));
      g.append(node('text', { x, y: y + 13, 'text-anchor': 'middle', class: 'sub' }, sub));
      if (!href) return g;
      const a = node('a', { href });
      a.append(g);
      return a;
    };
    const mid = width / 2;
    const p = c.parent;
    if (p) {
      svg.append(node('line', { x1: mid, y1: 52, x2: mid, y2: 103 }));
      const isCand = p.origin && p.origin !== 'baseline' && p.origin.indexOf('/') >= 0;
      svg.append(box(mid, 30, 'parent ' + (p.origin || p.beam_id), micros(p.latency_us), isCand ? candidateHref(id, p.origin) : null, 'parent'));
    }
    svg.append(box(mid, 125, c.id, c.verdict && c.verdict.measurement && c.verdict.measurement.correct ? micros(c.verdict.measurement.latency_us) : (c.verdict.failure || c.verdict.measurement.status || ''), null, 'self'));
    kids.forEach((k, i) => {
      const x = kids.length === 1 ? mid : 20 + 90 + i * ((width - 220) / Math.max(1, kids.length - 1));
      svg.append(node('line', { x1: mid, y1: 147, x2: x, y2: 198 }));
      svg.append(box(x, 220, k.id, k.correct ? micros(k.latency_us) : 'not correct', candidateHref(id, k.id), 'child'));
    });
    if (!kids.length) svg.append(node('text', { x: mid, y: 215, 'text-anchor': 'middle', class: 'sub' }, 'no children: no later candidate was rewritten from it'));
    return svg;
  }

  function candidateView(id, cid) {
    view.dataset.view = 'candidate';
    const refresh = coalesced(async () => {
      const c = await getJson('/v1/campaigns/' + encodeURIComponent(id) + '/candidate?id=' + encodeURIComponent(cid));
      const v = c.verdict || {}, m = v.measurement || {};
      const fig = (k, val) => el('div', { class: 'card' }, el('div', { class: 'k' }, k), el('div', { class: 'v' }, val));
      const verdict = el('div', { class: 'cards', id: 'verdict' },
        fig('result', v.ok ? (v.evaluated ? (m.correct ? 'correct' : m.status) : 'not evaluated yet') : 'refused: ' + (v.failure || '')),
        fig('latency (its own measurement)', m.correct ? micros(m.latency_us) : '–'),
        fig('spread (~95%)', typeof m.spread === 'number' ? (100 * m.spread).toFixed(1) + '%' : '–'),
        fig('% of peak', typeof m.percent_of_peak === 'number' ? fmt(m.percent_of_peak) + '%' : '–'),
        fig('parent', c.parent ? micros(c.parent.latency_us) : '–'),
        fig('vs parent', m.correct && c.parent && c.parent.latency_us ? fmt(c.parent.latency_us / m.latency_us) + 'x' : '–'));
      if (m.reason || v.detail) verdict.append(el('div', { class: 'card wide' }, el('div', { class: 'k' }, 'why'), el('div', { class: 'reason' }, m.reason || v.detail)));
      const diff = el('pre', { class: 'diff', id: 'diff' }, (c.diff || []).map((l) =>
        el('span', { class: l[0] === '+' ? 'add' : (l[0] === '-' ? 'del' : 'same') }, l + '\n')));
      view.replaceChildren(
        el('p', {}, el('a', { href: campaignHref(id) }, '← campaign ' + id)),
        el('h1', {}, 'Candidate ', c.id),
        el('p', { class: 'muted' }, c.problem + ' · iteration ' + c.iteration + (c.attempt ? ' · fix ' + c.attempt : '') + (c.reused ? ' · result reused' : '')),
        el('h2', {}, 'Verdict'), verdict,
        el('h2', {}, 'Lineage'), lineageSvg(id, c),
        el('h2', {}, 'Plan'), c.plan ? el('div', { id: 'plan' }, el('strong', {}, c.plan.title || '(untitled)'), el('pre', { class: 'text' }, c.plan.description || '')) : el('p', { class: 'muted' }, 'no plan recorded'),
        el('h2', {}, "Executor's reply"), c.reply ? el('pre', { class: 'text', id: 'reply' }, c.reply) : el('p', { class: 'muted' }, 'no reply recorded yet'),
        el('h2', {}, 'Code'), c.code ? el('pre', { class: 'code', id: 'code' }, c.code) : el('p', { class: 'muted' }, 'no code'),
        el('h2', {}, 'Diff against its parent'), (c.diff || []).length ? diff : el('p', { class: 'muted' }, 'no parent code to compare with'));
    });
    refresh().catch(showError);
    return openFeed(id, (m) => { if (!m || m.campaign === id) refresh().catch(showError); });
  }

  // Two campaigns side by side: per problem the best % of peak and the
  // headline speedup with its interval; the cost of each.
  function compareView(a, b) {
    view.dataset.view = 'compare';
    const refresh = coalesced(async () => {
      const all = (await getJson('/v1/campaigns')).campaigns || [];
      const ids = all.map((c) => c.id);
      const choose = (name, value) => el('select', { id: 'compare-' + name }, el('option', { value: '' }, '(choose)'),
        ids.map((i) => { const o = el('option', { value: i }, i); if (i === value) o.setAttribute('selected', ''); return o; }));
      const sa = choose('a', a), sb = choose('b', b);
      const go = () => { location.hash = '#/compare/' + encodeURIComponent(sa.value) + '/' + encodeURIComponent(sb.value); };
      sa.addEventListener('change', go); sb.addEventListener('change', go);
      const head = [el('h1', {}, 'Compare campaigns'), el('p', {}, sa, ' vs ', sb)];
      if (!a || !b) { view.replaceChildren(...head, el('p', { class: 'muted' }, 'Choose two campaigns.')); return; }
      const [ra, rb] = await Promise.all([a, b].map((x) => getJson('/v1/campaigns/' + encodeURIComponent(x) + '/report')));
      const byName = (r) => Object.fromEntries((r.problems || []).map((p) => [p.name, p]));
      const pa = byName(ra), pb = byName(rb);
      const names = [...new Set([...Object.keys(pa), ...Object.keys(pb)])].sort();
      const pct = (p) => (p && p.best && typeof p.best.percent_of_peak === 'number' ? fmt(p.best.percent_of_peak) + '%' : '–');
      const rows = names.map((n) => el('tr', { 'data-problem': n },
        el('td', {}, n), el('td', { class: 'num' }, pct(pa[n])), el('td', { class: 'num' }, pct(pb[n])),
        el('td', { class: 'num' }, pa[n] ? speedupText(pa[n]) : '–'), el('td', { class: 'num' }, pb[n] ? speedupText(pb[n]) : '–')));
      const cost = (r) => { const t = ((r.usage || {}).total) || {}; return '$' + fmt(t.cost_usd || 0, 4) + ' · ' + (t.calls || 0) + ' LLM calls · ' + (((r.usage || {}).evaluations) || 0) + ' evaluations'; };
      view.replaceChildren(...head,
        el('table', { id: 'compare' }, el('thead', {}, el('tr', {},
          ['problem', 'best % of peak: ' + a, 'best % of peak: ' + b, 'speedup [~95%]: ' + a, 'speedup [~95%]: ' + b].map((h) => el('th', {}, h)))),
          el('tbody', {}, rows)),
        el('div', { class: 'cards' },
          el('div', { class: 'card wide' }, el('div', { class: 'k' }, 'cost: ' + a), el('div', { class: 'v' }, cost(ra))),
          el('div', { class: 'card wide' }, el('div', { class: 'k' }, 'cost: ' + b), el('div', { class: 'v' }, cost(rb)))));
    });
    refresh().catch(showError);
    return { close() {} };
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
        const none = (cols, what) => el('tr', {}, el('td', { colspan: cols, class: 'muted' }, what));
        if (!banks.children.length) banks.append(none(7, 'No memory banks yet: a campaign with memory.scope "bank" creates one.'));
        if (!ps.children.length) ps.append(none(5, 'None yet: campaigns with memory.scope "problem" write their items here as they run.'));
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
    const cand = h.match(/^campaign\/([^/]+)\/candidate\/(.+)$/);
    const cmp = h.match(/^compare(?:\/([^/]*)\/([^/]*))?$/);
    if (cand) current = candidateView(cand[1], cand[2]);
    else if (cmp) current = compareView(cmp[1] || '', cmp[2] || '');
    else if (h.startsWith('campaign/')) current = campaignView(h.slice(9));
    else if (h === 'memory') current = memoryView('');
    else if (h.startsWith('memory/')) current = memoryView(h.slice(7));
    else current = campaignsView();
  }
  window.addEventListener('hashchange', route);
  route();
})();
