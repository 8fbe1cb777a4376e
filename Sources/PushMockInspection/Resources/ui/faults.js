// Faults: created, seen with their hit counts, and deleted through the API.
import { api } from './api.js';
import { clear, h, short } from './dom.js';
import { field, formData, options } from './forms.js';
import { rejections } from './state.js';

function action(fault) {
  if (fault.sequence) {
    // A sequence: its steps in turn, the next one marked.
    return fault.sequence.map((step, index) => (index === fault.nextStep ? `→ ${action(step)}` : action(step))).join(', ');
  }
  if (fault.accept) return 'accept';
  if (fault.reject) {
    const retry = fault.reject.retryAfter === undefined || fault.reject.retryAfter === null ? '' : ` (Retry-After ${fault.reject.retryAfter} s)`;
    return `reject ${fault.reject.status} ${fault.reject.reason}${retry}`;
  }
  if (fault.delayMilliseconds !== undefined && fault.delayMilliseconds !== null) return `delay ${fault.delayMilliseconds} ms`;
  if (fault.delay) {
    const d = fault.delay;
    if (d.distribution === 'uniform') return `delay ${d.minMilliseconds}–${d.maxMilliseconds} ms (uniform)`;
    if (d.distribution === 'normal') return `delay ${d.meanMilliseconds} ± ${d.standardDeviationMilliseconds} ms (normal)`;
    return `delay median ${d.medianMilliseconds} ms, σ ${d.sigma} (log-normal)`;
  }
  if (fault.goAway) return `GOAWAY ${fault.goAway}`;
  if (fault.resetStream) return 'reset stream';
  return '';
}

export class FaultsView {
  async enter(main) {
    this.message = h('p', { role: 'status' });
    this.body = h('tbody');
    const reasons = [...new Set((await rejections().catch(() => [])).filter((entry) => entry.service === 'apns' || entry.service === 'fcm').map((entry) => entry.reason))];
    const form = h('form', { class: 'add', 'aria-labelledby': 'add-fault-title', onsubmit: (event) => this.add(event) },
      h('h3', { id: 'add-fault-title' }, 'Create a fault'),
      field('id', 'Id', h('input', { placeholder: 'optional', pattern: '[A-Za-z0-9._\\-]+' })),
      field('service', 'Service', h('select', {}, options(['', 'apns', 'fcm', 'oauth', 'broadcast', 'iid', 'webpush']))),
      field('token', 'Token', h('input', { size: 30, placeholder: 'any' })),
      field('topic', 'Topic', h('input', { placeholder: 'any' })),
      field('reason', 'Reject with', h('select', { required: true }, options(reasons))),
      field('count', 'Times', h('input', { type: 'number', min: 1, placeholder: 'always' })),
      h('button', { class: 'primary' }, 'Create fault'));
    clear(main, h('section', { 'aria-labelledby': 'faults-title' },
      h('div', { class: 'bar' }, h('h2', { id: 'faults-title' }, 'Faults'),
        h('button', { type: 'button', class: 'danger', onclick: () => this.removeAll() }, 'Delete all')),
      h('p', { class: 'muted' }, 'A fault changes the answer to matching requests; a counted one is gone once spent.'),
      h('div', { class: 'scroll' }, h('table', {}, h('thead', {}, h('tr', {}, ['Id', 'Match', 'Action', 'Hits', 'Left', ''].map((title) => h('th', { scope: 'col' }, title)))), this.body)),
      this.message, form));
    await this.load();
  }

  async load() {
    const { faults } = await api('/api/v1/faults');
    clear(this.body, faults.length ? faults.map((fault) => h('tr', { 'data-fault': fault.id },
      h('td', { class: 'mono' }, fault.id),
      h('td', {}, Object.entries(fault.match ?? {}).filter(([, value]) => value !== null && value !== undefined).map(([key, value]) => `${key}=${short(String(value), 20)}`).join(' ') || 'everything'),
      h('td', {}, action(fault), fault.target === 'upstream' ? h('span', { class: 'muted' }, ' on the upstream\'s answer') : ''), h('td', { class: 'hits' }, fault.hits ?? 0), h('td', {}, fault.count ?? '∞'),
      h('td', {}, h('button', { type: 'button', class: 'danger', 'aria-label': `Delete fault ${fault.id}`, onclick: () => this.remove(fault.id) }, 'Delete'))))
      : h('tr', {}, h('td', { colspan: 6, class: 'empty' }, 'No faults: every answer is the real service\'s.')));
  }

  async add(event) {
    event.preventDefault();
    const data = formData(event.target);
    const match = Object.fromEntries(['service', 'token', 'topic'].filter((key) => data[key]).map((key) => [key, data[key]]));
    const body = { match, reject: { reason: data.reason } };
    if (data.id) body.id = data.id;
    if (data.count) body.count = Number(data.count);
    try {
      const fault = await api('/api/v1/faults', { method: 'PUT', body });
      this.message.textContent = `Fault ${fault.id} created.`;
      event.target.reset();
      await this.load();
    } catch (error) { this.message.textContent = `Refused: ${error.message}`; }
  }

  async remove(id) {
    await api(`/api/v1/faults/${encodeURIComponent(id)}`, { method: 'DELETE' });
    this.message.textContent = `Fault ${id} deleted.`;
    await this.load();
  }

  async removeAll() {
    await api('/api/v1/faults', { method: 'DELETE' });
    this.message.textContent = 'All faults deleted.';
    await this.load();
  }
}
