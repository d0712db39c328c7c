// The page of `handoff ui`: plain DOM, no framework, no build step. Everything an agent wrote (goals, envelopes,
// commands, outputs, approval content) reaches the page only as text nodes (textContent, createTextNode), never as
// markup; the server's Content-Security-Policy runs this file and nothing else. Control and invisible format characters
// (bidi overrides, zero-width characters) are shown as <U+XXXX>, as the terminal verbs show them, so what a person
// approves is what the bytes say.
'use strict';

(function () {
  const main = document.getElementById('main');
  // eslint-disable-next-line no-control-regex -- showing control characters is the point
  const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/gu;

  /** An element with attributes and children (strings become text nodes). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') node.className = v;
      else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      node.append(typeof c === 'string' || typeof c === 'number' ? shown(String(c)) : c);
    }
    return node;
  }

  /** Agent text as text nodes, each hidden character as a visible <U+XXXX> mark. */
  function shown(text) {
    const frag = document.createDocumentFragment();
    let last = 0;
    for (const m of text.matchAll(HIDDEN)) {
      frag.append(document.createTextNode(text.slice(last, m.index)));
      const code = m[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0');
      const mark = document.createElement('span');
      mark.className = 'cp';
      mark.title = 'a control or invisible format character';
      mark.textContent = `<U+${code}>`;
      frag.append(mark);
      last = m.index + m[0].length;
    }
    frag.append(document.createTextNode(text.slice(last)));
    return frag;
  }

  const badge = (cls, text) => el('span', { class: `badge ${cls}` }, text);
  const json = (v) => el('pre', { class: 'mono' }, JSON.stringify(v, null, 2));
  const when = (iso) => (typeof iso === 'string' ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '');

  function marks(item) {
    return [
      badge(`s-${item.agent_state}`, item.agent_state),
      item.liveness ? badge(`m-${item.liveness}`, item.liveness) : null,
      item.cut_reason ? badge('m-cut', `cut: ${item.cut_reason}`) : null,
      item.degraded ? badge('m-degraded', 'degraded') : null,
    ];
  }

  async function api(path, init) {
    const res = await fetch(path, { cache: 'no-store', credentials: 'same-origin', ...init });
    const body = await res.json().catch(() => ({ code: 'INTERNAL', error: `HTTP ${res.status}` }));
    if (!res.ok) throw Object.assign(new Error(body.error || `HTTP ${res.status}`), { code: body.code });
    return body;
  }

  function show(...nodes) {
    main.replaceChildren(...nodes);
  }

  function failed(e) {
    show(el('p', { class: 'error', id: 'error' }, `${e.code ? `${e.code}: ` : ''}${e.message}`));
  }

  function setNav(which) {
    document.getElementById('nav-chains').classList.toggle('active', which === 'chains');
    document.getElementById('nav-approvals').classList.toggle('active', which === 'approvals');
  }

  async function chainsPage() {
    setNav('chains');
    const { workspace, chains } = await api('api/chains');
    document.getElementById('workspace').textContent = workspace;
    if (chains.length === 0) return show(el('h1', {}, 'Chains'), el('p', { class: 'muted' }, 'No chains yet.'));
    const rows = chains.map((c) =>
      el(
        'tr',
        { 'data-contract': c.live_contract_id },
        el('td', {}, el('a', { href: `#/chain/${c.live_contract_id}`, class: 'goal' }, c.goal ?? '(no goal)')),
        el('td', {}, marks(c)),
        el('td', {}, String(c.links)),
        el('td', { class: 'mono' }, c.live_contract_id),
        el('td', { class: 'muted' }, when(c.updated_at)),
      ),
    );
    show(
      el('h1', {}, 'Chains'),
      el(
        'table',
        { id: 'chains' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['goal', 'state', 'links', 'live contract', 'updated'].map((h) => el('th', {}, h)),
          ),
        ),
        el('tbody', {}, rows),
      ),
    );
  }

  function receiptCard(r) {
    const out = (name, tail, bytes, elsewhere) => {
      if (elsewhere)
        return el(
          'p',
          { class: 'muted' },
          `${name}: ${bytes} bytes kept in a file: handoff evidence show ${r.receipt_id}`,
        );
      if (tail === null || tail === '') return null;
      const cut = tail.length < bytes ? ` (the last ${tail.length} characters of ${bytes} bytes)` : '';
      return el('div', {}, el('span', { class: 'muted' }, `${name}${cut}`), el('pre', { class: 'tail' }, tail));
    };
    return el(
      'div',
      { class: 'card receipt', 'data-receipt': r.receipt_id },
      el(
        'div',
        { class: 'link-head' },
        el('code', { class: 'command' }, r.command),
        badge(`o-${r.outcome}`, r.outcome),
        el('span', {}, `exit ${r.exit_code ?? (r.timed_out ? 'timeout' : (r.signal ?? 'none'))}`),
        badge(`f-${r.freshness}`, r.freshness === 'unknown' ? 'freshness unknown' : r.freshness),
        el('span', { class: 'muted' }, `${when(r.started_at)} · ${r.duration_ms} ms · ${r.receipt_id}`),
      ),
      out('stdout', r.stdout_tail, r.stdout_bytes, r.stdout_elsewhere),
      out('stderr', r.stderr_tail, r.stderr_bytes, r.stderr_elsewhere),
    );
  }

  function linkItem(link, i, step) {
    const evidence = link.evidence.map((e) =>
      el(
        'li',
        {},
        `${e.type} · ${e.brief}/${e.ac_id} · `,
        e.text ?? e.artifact_path ?? '',
        el('span', { class: 'muted' }, ` sha256 ${e.sha256.slice(0, 12)}…`),
      ),
    );
    return el(
      'li',
      { class: 'link', 'data-link': String(i + 1) },
      el(
        'div',
        { class: 'link-head' },
        el('strong', {}, `#${i + 1}`),
        el('code', {}, link.contract_id),
        marks(link),
        el('span', { class: 'muted' }, when(link.created_at)),
      ),
      link.goal ? el('p', { class: 'goal' }, link.goal) : null,
      el(
        'details',
        { class: 'diff', open: true },
        el(
          'summary',
          {},
          i === 0 ? 'Envelope as first stored (merge patch from {})' : 'Changes from the link before (merge patch)',
        ),
        json(step.patch),
        step.null_paths.length > 0 ? el('p', { class: 'muted' }, `set to null: ${step.null_paths.join(', ')}`) : null,
      ),
      el('details', { class: 'envelope' }, el('summary', {}, 'Whole envelope'), json(link.envelope)),
      link.test_changes !== null
        ? el('div', { class: 'test-changes' }, el('span', { class: 'muted' }, 'Test changes'), json(link.test_changes))
        : null,
      evidence.length > 0
        ? el('div', {}, el('span', { class: 'muted' }, 'Evidence'), el('ul', { class: 'evidence' }, evidence))
        : null,
    );
  }

  async function chainPage(id) {
    setNav('chains');
    const chain = await api(`api/chain?contract=${encodeURIComponent(id)}`);
    document.getElementById('workspace').textContent = chain.workspace;
    const root = chain.links[0];
    show(
      el('p', {}, el('a', { href: '#/' }, '← Chains')),
      el('h1', { id: 'chain-goal' }, root.goal ?? '(no goal)'),
      el(
        'p',
        { class: 'muted' },
        `${chain.links.length} link(s); the live contract is `,
        el('code', {}, chain.live_contract_id),
      ),
      el(
        'ol',
        { class: 'timeline', id: 'timeline' },
        chain.links.map((l, i) => linkItem(l, i, chain.steps[i])),
      ),
      el('h2', {}, `Receipts (${chain.receipts.length})`),
      chain.receipts.length === 0
        ? el('p', { class: 'muted' }, 'No receipts in this chain.')
        : el('div', { id: 'receipts' }, chain.receipts.map(receiptCard)),
    );
  }

  // The decider's name is asked once per page session.
  let deciderName = sessionStorage.getItem('handoff-decider');
  function askName() {
    if (deciderName) return Promise.resolve(deciderName);
    const form = document.getElementById('decider');
    const input = document.getElementById('decider-name');
    form.hidden = false;
    input.focus();
    return new Promise((resolve) => {
      const done = (name) => {
        form.hidden = true;
        form.removeEventListener('submit', submit);
        document.getElementById('decider-cancel').removeEventListener('click', cancel);
        resolve(name);
      };
      const submit = (ev) => {
        ev.preventDefault();
        const name = input.value.trim();
        if (name === '') return;
        deciderName = name;
        sessionStorage.setItem('handoff-decider', name);
        done(name);
      };
      const cancel = () => done(null);
      form.addEventListener('submit', submit);
      document.getElementById('decider-cancel').addEventListener('click', cancel);
    });
  }

  async function decide(a, decision, card) {
    const by = await askName();
    if (!by) return;
    const note = card.querySelector('input.note').value;
    const status = card.querySelector('.result');
    try {
      const r = await api(`api/approvals/${a.id}/decide`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ decision, by, note }),
      });
      status.replaceChildren(
        badge(r.approval_status === 'approved' ? 'o-pass' : 'o-fail', r.approval_status),
        ` by ${r.decided_by}`,
      );
      for (const b of card.querySelectorAll('button')) b.disabled = true;
      refreshCount();
    } catch (e) {
      status.replaceChildren(el('span', { class: 'error' }, `${e.code ? `${e.code}: ` : ''}${e.message}`));
    }
  }

  function approvalCard(a) {
    const card = el(
      'div',
      { class: 'card approval', 'data-approval': a.id },
      el('div', { class: 'link-head' }, el('code', {}, a.id), el('span', { class: 'muted' }, when(a.created_at))),
      el(
        'dl',
        { class: 'kv' },
        el('dt', {}, 'requested by'),
        el(
          'dd',
          {},
          a.contract_id
            ? el('a', { href: `#/chain/${a.contract_id}` }, a.contract_id)
            : (a.agent_id ?? '(no contract)'),
          a.contract_state ? [' ', badge(`s-${a.contract_state}`, a.contract_state)] : null,
        ),
        el('dt', {}, 'goal'),
        el('dd', {}, a.contract_goal ?? ''),
        el('dt', {}, 'risk'),
        el(
          'dd',
          { class: 'risk' },
          a.risk === null
            ? el('span', { class: 'muted' }, 'not stated')
            : typeof a.risk === 'string'
              ? a.risk
              : JSON.stringify(a.risk),
        ),
        el('dt', {}, 'fingerprint'),
        el('dd', { class: 'mono' }, a.fingerprint),
      ),
      el('div', { class: 'muted' }, 'Exact content:'),
      el('pre', { class: 'content' }, a.exact_content),
      el(
        'div',
        { class: 'actions' },
        el('input', { class: 'note', placeholder: 'note (optional)', maxlength: 2000 }),
        el('button', { class: 'approve', type: 'button' }, 'Approve'),
        el('button', { class: 'reject', type: 'button' }, 'Reject'),
        el('span', { class: 'result' }),
      ),
    );
    card.querySelector('button.approve').addEventListener('click', () => decide(a, 'approved', card));
    card.querySelector('button.reject').addEventListener('click', () => decide(a, 'rejected', card));
    return card;
  }

  async function approvalsPage() {
    setNav('approvals');
    const { workspace, signing, approvals } = await api('api/approvals');
    document.getElementById('workspace').textContent = workspace;
    const signed =
      signing === 'approver'
        ? "signed with the approver's key (--key)"
        : signing === 'store'
          ? "signed with the store's key"
          : 'not signed (no key)';
    show(
      el('h1', {}, `Pending approvals (${approvals.length})`),
      el('p', { class: 'muted' }, `Decisions are ${signed}.`),
      approvals.length === 0
        ? el('p', { class: 'muted' }, 'Nothing is waiting for a decision.')
        : el('div', { id: 'approvals' }, approvals.map(approvalCard)),
    );
  }

  function refreshCount() {
    api('api/approvals')
      .then(({ approvals }) => {
        document.getElementById('pending-count').textContent = approvals.length > 0 ? String(approvals.length) : '';
      })
      .catch(() => {});
  }

  function route() {
    const hash = location.hash.replace(/^#/, '') || '/';
    const chain = /^\/chain\/([^/]+)$/.exec(hash);
    const page = chain
      ? chainPage(decodeURIComponent(chain[1]))
      : hash === '/approvals'
        ? approvalsPage()
        : chainsPage();
    page.then(() => document.body.setAttribute('data-ready', hash), failed);
    refreshCount();
  }

  window.addEventListener('hashchange', () => {
    document.body.removeAttribute('data-ready');
    route();
  });
  route();
})();
