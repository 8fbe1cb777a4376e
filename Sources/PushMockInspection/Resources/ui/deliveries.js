// Deliveries: a live list (fed by the event stream, paged by the API's cursors) and one
// delivery's request, answer, rule and actions.
import { api } from './api.js';
import { alertText, clear, h, jsonView, outcomeBadge, relayBadge, short, time } from './dom.js';
import { rejections } from './state.js';

const PAGE = 100;
const FILTERS = [
  ['service', 'select', ['', 'apns', 'fcm', 'oauth', 'broadcast', 'iid', 'webpush']],
  ['outcome', 'select', ['', 'accepted', 'dropped', 'rejected']],
  ['pushType', 'select', ['', 'alert', 'background', 'liveactivity', 'widgets', 'controls', 'voip', 'location', 'complication', 'fileprovider', 'mdm', 'pushtotalk']],
  ['token', 'input', 'device or FCM token'],
  ['topic', 'input', 'apns-topic'],
  ['reason', 'input', 'BadDeviceToken'],
  ['status', 'input', '400'],
  ['text', 'input', 'search headers and body'],
  ['relayAgrees', 'select', ['', 'true', 'false']],
];

function target(delivery) {
  const message = delivery.payload?.message;
  if (delivery.service === 'fcm' && message) {
    for (const key of ['token', 'topic', 'condition']) if (message[key]) return `${key} ${short(message[key], 24)}`;
  }
  return [delivery.topic, delivery.pushType].filter(Boolean).join(' · ');
}

export class DeliveriesView {
  constructor() {
    this.items = [];
    this.pending = [];
    this.paused = false;
    this.newest = 0;
    this.before = null;
    this.filters = {};
    this.scheduled = false;
  }

  listen(subscribe, subscribeRelay) {
    subscribeRelay((event) => this.relayed(event));
    subscribe((delivery) => {
      // Events come in id order; one the last load already returned is not shown twice.
      if (!delivery || delivery.id <= this.newest || !this.matches(delivery)) return;
      this.newest = delivery.id;
      if (this.paused || this.before !== null) { this.pending.unshift(delivery); this.pending.length = Math.min(this.pending.length, 10000); }
      else { this.items.unshift(delivery); this.items.length = Math.min(this.items.length, PAGE); }
      this.schedule();
    });
  }

  // A relay answer for a delivery: its row is drawn again (the list filtered by it is read again).
  relayed({ deliveryId, relay }) {
    if (this.filters.relayAgrees) {
      clearTimeout(this.reload);
      this.reload = setTimeout(() => { if (this.before === null) this.load().catch(() => {}); }, 300);
      return;
    }
    const item = [...this.items, ...this.pending].find((delivery) => delivery.id === deliveryId);
    if (!item) return;
    item.relay = relay;
    const row = this.body?.querySelector(`tr[data-id="${deliveryId}"]`);
    if (row) row.replaceWith(this.row(item));
  }

  matches(delivery) {
    const f = this.filters;
    if (f.service && delivery.service !== f.service) return false;
    if (f.outcome && delivery.outcome !== f.outcome) return false;
    if (f.pushType && delivery.pushType !== f.pushType) return false;
    if (f.token && delivery.deviceToken?.toLowerCase() !== f.token.toLowerCase()) return false;
    if (f.topic && delivery.topic !== f.topic) return false;
    if (f.reason && delivery.reason !== f.reason) return false;
    if (f.status && String(delivery.status) !== f.status) return false;
    if (f.text && !matchesText(delivery, f.text)) return false;
    if (f.relayAgrees && String(delivery.relay?.agrees) !== f.relayAgrees) return false;
    return true;
  }

  async enter(main) {
    this.main = main;
    const form = h('form', { class: 'filters', role: 'search', onsubmit: (event) => event.preventDefault() });
    for (const [name, kind, option] of FILTERS) {
      const control = kind === 'select'
        ? h('select', { name }, option.map((value) => h('option', { value }, value || 'any')))
        : h('input', { name, placeholder: option, type: name === 'text' ? 'search' : 'text', size: name === 'text' ? 22 : 12 });
      control.value = this.filters[name] ?? '';
      form.append(h('label', {}, name, control));
    }
    let timer;
    const apply = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const filters = Object.fromEntries([...new FormData(form)].filter(([, value]) => value !== ''));
        if (JSON.stringify(filters) === JSON.stringify(this.filters)) return;
        this.filters = filters;
        this.before = null;
        this.load().catch((error) => { this.count.textContent = error.message; });
      }, 250);
    };
    form.addEventListener('input', apply);
    form.addEventListener('change', apply);
    this.pauseButton = h('button', { type: 'button', onclick: () => this.togglePause() });
    this.count = h('span', { class: 'count', 'aria-live': 'polite' });
    this.body = h('tbody');
    this.pager = h('div', { class: 'pager' });
    clear(main,
      h('section', { 'aria-labelledby': 'deliveries-title' },
        h('div', { class: 'bar' },
          h('h2', { id: 'deliveries-title' }, 'Deliveries'), this.count, this.pauseButton,
          h('button', { type: 'button', class: 'danger', onclick: () => this.clearAll() }, 'Clear')),
        form,
        h('div', { class: 'scroll' },
          h('table', { class: 'deliveries' },
            h('thead', {}, h('tr', {}, ['Time', 'Service', 'Answer', 'Token', 'Topic / target', 'Title and body'].map((title) => h('th', { scope: 'col' }, title)))),
            this.body)),
        this.pager));
    this.updatePause();
    await this.load();
  }

  async load() {
    const params = new URLSearchParams({ ...this.filters, limit: PAGE });
    if (this.before !== null) params.set('before', this.before);
    const list = await api(`/api/v1/deliveries?${params}`);
    this.items = list.deliveries;
    this.total = list.total;
    if (this.before === null) {
      this.pending = [];
      this.newest = Math.max(this.newest, list.deliveries[0]?.id ?? 0);
    }
    this.render();
  }

  schedule() {
    if (this.scheduled || !this.body?.isConnected) return;
    this.scheduled = true;
    requestAnimationFrame(() => { this.scheduled = false; this.render(); });
  }

  render() {
    if (!this.body?.isConnected) return;
    // Rows are kept by id: a row already shown is moved, never redrawn, so focus and selection stay.
    const shown = new Map([...this.body.querySelectorAll('tr[data-id]')].map((row) => [row.dataset.id, row]));
    const rows = this.items.map((delivery) => shown.get(String(delivery.id)) ?? this.row(delivery));
    if (!rows.length) rows.push(h('tr', {}, h('td', { colspan: 6, class: 'empty' }, 'No deliveries yet. Send one: pushmock send apns --alert Hello')));
    const focused = document.activeElement;
    rows.forEach((row, index) => { if (this.body.children[index] !== row) this.body.insertBefore(row, this.body.children[index] ?? null); });
    while (this.body.children.length > rows.length) this.body.lastElementChild.remove();
    if (focused?.isConnected && focused !== document.activeElement) focused.focus();
    this.count.textContent = this.pending.length ? `${this.pending.length} new` : '';
    const older = this.items.at(-1)?.id;
    clear(this.pager,
      this.before !== null && h('button', { type: 'button', onclick: () => { this.before = null; this.load(); } }, 'Newest'),
      this.items.length === PAGE && h('button', { type: 'button', onclick: () => { this.before = older; this.load(); } }, 'Older'));
  }

  row(delivery) {
    const [title, body] = alertText(delivery);
    const open = () => { location.hash = `#/deliveries/${delivery.id}`; };
    return h('tr', {
      tabindex: 0, 'data-id': delivery.id, class: `${delivery.outcome}${delivery.relay?.agrees === false ? ' disagrees' : ''}`,
      onclick: open,
      onkeydown: (event) => {
        if (event.key === 'Enter') open();
        if (event.key === 'ArrowDown') { event.preventDefault(); event.currentTarget.nextElementSibling?.focus(); }
        if (event.key === 'ArrowUp') { event.preventDefault(); event.currentTarget.previousElementSibling?.focus(); }
      },
    },
    h('td', {}, h('time', { datetime: delivery.receivedAt }, time(delivery.receivedAt))),
    h('td', {}, delivery.service),
    h('td', {}, outcomeBadge(delivery), ' ', h('b', {}, delivery.status), ' ', delivery.reason ?? delivery.dropReason ?? '', delivery.relay ? ' ' : '', relayBadge(delivery.relay)),
    h('td', { class: 'mono', title: delivery.deviceToken ?? '' }, short(delivery.deviceToken)),
    h('td', {}, target(delivery)),
    h('td', {}, h('b', {}, title), body ? ` — ${body}` : ''));
  }

  togglePause() {
    this.paused = !this.paused;
    if (!this.paused && this.before === null) {
      this.items = [...this.pending, ...this.items].slice(0, PAGE);
      this.pending = [];
      this.render();
    }
    this.updatePause();
  }

  updatePause() {
    this.pauseButton.textContent = this.paused ? 'Resume' : 'Pause';
    this.pauseButton.setAttribute('aria-pressed', String(this.paused));
  }

  async clearAll() {
    if (!confirm('Remove every recorded delivery?')) return;
    await api('/api/v1/deliveries', { method: 'DELETE' });
    this.items = [];
    this.pending = [];
    this.render();
  }
}

// The rule a delivery's reason names, and the path to highlight (a catalogue entry's, or the
// field an FCM INVALID_ARGUMENT explanation names).
async function ruleOf(delivery) {
  if (!delivery.reason && !delivery.dropReason) return null;
  const reason = delivery.reason ?? delivery.dropReason;
  const entry = (await rejections().catch(() => [])).find((candidate) => candidate.reason === reason && (candidate.service === 'fcm') === (delivery.service === 'fcm'));
  let path = entry?.path ?? null;
  const named = /'?(message(?:\.[A-Za-z0-9_\-[\]]+)+)'?/.exec(delivery.explanation ?? '');
  if (delivery.service === 'fcm' && named) path = named[1];
  return { reason, entry, path };
}

function headerTable(rows, highlighted) {
  return h('table', { class: 'headers' }, h('tbody', {}, rows.map(([name, value]) =>
    h('tr', { class: name === highlighted ? 'highlight' : '' }, h('th', { scope: 'row' }, name), h('td', { class: 'mono' }, value)))));
}

export async function showDelivery(main, id) {
  const delivery = await api(`/api/v1/deliveries/${id}`);
  const rule = await ruleOf(delivery);
  const headerPath = rule?.path?.startsWith('header:') ? rule.path.slice(7) : null;
  const pseudo = [[':method', delivery.method], [':path', delivery.path], ['protocol', delivery.protocol]];
  const headers = delivery.headers.filter(([name]) => name !== 'authorization');
  const auth = delivery.authorization;
  const payload = delivery.payload !== null && delivery.payload !== undefined
    ? jsonView(delivery.payload, headerPath ? null : rule?.path)
    : { element: h('pre', { class: 'json' }, delivery.body ?? `(${delivery.bodyBase64 ? 'binary' : 'empty'} body)`), marked: null };
  const curl = h('pre', { class: 'curl', hidden: true });
  const resent = h('p', { 'aria-live': 'polite' });
  clear(main,
    h('nav', { class: 'crumbs' }, h('a', { href: '#/deliveries' }, '← Deliveries')),
    h('section', { class: 'detail', 'aria-labelledby': 'detail-title' },
      h('div', { class: 'bar' },
        h('h2', { id: 'detail-title' }, `Delivery ${delivery.id}`), outcomeBadge(delivery),
        h('button', { type: 'button', onclick: async () => {
          curl.textContent = await api(`/api/v1/deliveries/${id}/curl`, { text: true });
          curl.hidden = false;
          await navigator.clipboard?.writeText(curl.textContent).catch(() => {});
        } }, 'Copy as curl'),
        h('button', { type: 'button', class: 'primary', onclick: async () => {
          resent.textContent = 'sending…';
          try {
            const result = await api(`/api/v1/deliveries/${id}/resend`, { method: 'POST', body: {} });
            clear(resent, `Sent again: ${result.status} ${result.reason ?? ''} → `,
              result.deliveryId ? h('a', { href: `#/deliveries/${result.deliveryId}` }, `delivery ${result.deliveryId}`) : 'not recorded');
          } catch (error) { resent.textContent = `Could not send: ${error.message}`; }
        } }, 'Send again')),
      resent, curl,
      h('div', { class: 'columns' },
        h('article', { 'aria-labelledby': 'request-title' },
          h('h3', { id: 'request-title' }, 'Request as received'),
          h('p', {}, h('time', { datetime: delivery.receivedAt }, new Date(delivery.receivedAt).toLocaleString()), ` · ${delivery.service}`,
            delivery.environment ? ` · ${delivery.environment}` : '', ` · connection ${delivery.connectionId}`),
          headerTable([...pseudo, ...headers], headerPath),
          auth && h('div', { class: `jwt ${headerPath === 'authorization' ? 'highlight' : ''}` },
            h('h4', {}, `authorization: ${auth.scheme} (JWT, signature elided)`),
            h('div', { class: 'jwt-parts' },
              h('div', {}, h('h5', {}, 'header'), jsonView(auth.header).element),
              h('div', {}, h('h5', {}, 'claims'), jsonView(auth.claims).element, claimTimes(auth.claims))),
            h('p', { class: 'mono' }, `signature: ${auth.signature}`)),
          h('h4', {}, 'Payload'), payload.element),
        h('article', { 'aria-labelledby': 'answer-title' },
          h('h3', { id: 'answer-title' }, 'Answer as sent'),
          h('p', { class: 'status' }, h('b', {}, delivery.status), ' ', delivery.reason ?? (delivery.outcome === 'dropped' ? `(${delivery.status} on the wire)` : delivery.status === 201 ? 'Created' : 'OK'),
            delivery.apnsId ? h('span', { class: 'mono' }, ` apns-id ${delivery.apnsId}`) : ''),
          delivery.explanation && h('p', { class: 'explanation' }, delivery.explanation),
          delivery.dropReason && h('p', {}, `A device would drop it: ${delivery.dropReason}`),
          delivery.fault && h('p', {}, `Fault ${delivery.fault} changed this answer.`),
          delivery.relay && relaySection(delivery.relay),
          declarativeNotification(delivery),
          rule && h('div', { class: 'rule' },
            h('h4', {}, `Rule: ${rule.reason}`),
            rule.entry && h('p', {}, rule.entry.trigger, '. ', h('span', { class: 'ref' }, `Reference: ${rule.entry.reference}`)),
            rule.path && h('p', {}, 'Names: ', h('code', {}, rule.path.replace(/^header:/, 'header ')))),
          delivery.diagnostics.length > 0 && h('div', {}, h('h4', {}, 'Diagnostics'), h('ul', {}, delivery.diagnostics.map((text) => h('li', {}, text)))),
          delivery.activityId && h('p', {}, 'Live Activity: ', h('a', { href: '#/activities' }, short(delivery.activityId, 24))),
          delivery.issuedActivityToken && h('p', {}, 'Activity token issued: ', h('code', {}, short(delivery.issuedActivityToken, 24))),
          delivery.recipients && h('p', { class: 'recipients' }, delivery.recipients.length === 0
            ? 'Fan-out: nobody would receive it (no subscribed token)'
            : `Fan-out: ${fanOutCount(delivery)} token${fanOutCount(delivery) === 1 ? '' : 's'}: `,
            ...delivery.recipients.slice(0, 20).map((token) => h('code', {}, short(token, 24) + ' ')))))));
  payload.marked?.scrollIntoView({ block: 'nearest' });
  main.focus();
}

// What the relay's upstream answered, and whether it agrees with PushMock.
// A Declarative Web Push message (web_push 8030) as Safari shows it without a service worker, or
// why it shows nothing.
function declarativeNotification(delivery) {
  const payload = delivery.payload;
  if (delivery.service !== 'webpush' || payload?.web_push !== 8030) return null;
  if (delivery.reason === 'DeclarativeWebPushInvalid') {
    return h('div', { class: 'web-notification refused' }, h('h4', {}, 'Declarative Web Push'), h('p', {}, 'Safari shows no notification for it.'));
  }
  const notification = payload.notification ?? {};
  let origin = '';
  try { origin = new URL(notification.navigate).host; } catch { origin = ''; }
  const notes = [`a tap opens ${notification.navigate}`];
  if (typeof payload.app_badge === 'number') notes.push(`app badge ${payload.app_badge}`);
  if (payload.mutable === true) notes.push('mutable: a service worker may change it first');
  return h('div', { class: 'web-notification', role: 'img', 'aria-label': `Notification: ${notification.title ?? ''}` },
    h('h4', {}, 'As Safari shows it'),
    h('div', { class: 'web-notification-card' },
      h('div', { class: 'web-notification-origin' }, origin),
      h('b', {}, notification.title ?? ''),
      notification.body ? h('p', {}, notification.body) : ''),
    h('p', { class: 'muted' }, notes.join(' · ')));
}

function relaySection(relay) {
  const answer = relay.status === undefined
    ? `no answer: ${relay.error ?? 'unknown'}`
    : `${relay.status} ${relay.reason ?? ''}${relay.upstreamId ? ` · ${relay.upstreamId}` : ''}`;
  return h('div', { class: `relay-answer ${relay.agrees === false ? 'disagrees' : ''}` },
    h('h4', {}, 'Relay ', relayBadge(relay)),
    h('p', {}, `${relay.upstream} answered ${answer}`),
    h('p', {}, `${relay.attempts} attempt${relay.attempts === 1 ? '' : 's'}`, relay.latencyMilliseconds !== undefined ? `, ${relay.latencyMilliseconds} ms` : '',
      relay.agrees === false ? '. PushMock answered otherwise: this is a difference to report.' : relay.agrees ? '. The upstream agrees with PushMock.' : ''));
}

// A large fan-out is recorded with a sample of its tokens and their number in a diagnostic.
function fanOutCount(delivery) {
  for (const line of delivery.diagnostics ?? []) {
    const match = /^fan-out: (\d+) registration tokens/.exec(line);
    if (match) return Number(match[1]);
  }
  return delivery.recipients.length;
}

function claimTimes(claims) {
  const rows = ['iat', 'exp'].filter((key) => typeof claims?.[key] === 'number')
    .map((key) => h('li', {}, `${key}: ${new Date(claims[key] * 1000).toLocaleString()}`));
  return rows.length ? h('ul', { class: 'claim-times' }, rows) : null;
}

// The `text` filter as the server means it: the request's headers (`name: value`) and body,
// ASCII case-insensitive; nothing else of the record.
export function matchesText(delivery, text) {
  const lower = (value) => value.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const needle = lower(text);
  const headers = (delivery.headers || []).map(([name, value]) => `${name}: ${value}`);
  let body = delivery.body ?? '';
  if (!delivery.body && delivery.bodyBase64) {
    try { body = atob(delivery.bodyBase64); } catch { body = ''; }
  }
  return [...headers, body].some((haystack) => lower(haystack).includes(needle));
}
