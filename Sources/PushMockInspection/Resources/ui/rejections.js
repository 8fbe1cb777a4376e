// The rejections catalogue: every answer PushMock gives besides success, what triggers it, a
// button that sends a request producing it through the push port, and, once a relay forwarded such
// pushes, how often the real service agreed (the parity records).
import { api } from './api.js';
import { clear, h } from './dom.js';

const GROUPS = [['apns', 'APNs reasons'], ['liveactivity', 'Live Activity rules (strict profile)'], ['fcm', 'FCM errors'], ['webpush', 'Web Push answers (rule recorded; each service answers it in its own body)']];

export class RejectionsView {
  async enter(main) {
    // Fetched afresh each time: the parity records change as the relay's answers come.
    const list = await api('/api/v1/rejections');
    const entries = list.entries;
    const outside = (list.parity ?? []).filter((record) => !entries.some((entry) => counts(entry, record)));
    clear(main, h('section', { 'aria-labelledby': 'rejections-title' },
      h('div', { class: 'bar' }, h('h2', { id: 'rejections-title' }, 'Rejections catalogue')),
      h('p', { class: 'muted' }, '“Send it” sends a request that produces the answer through the push port and shows how it was recorded. The same list is printed by pushmock rejections. With a relay in shadow mode, each answer shows how often Apple or Google agreed.'),
      outside.length ? h('div', { class: 'parity-outside' }, h('h3', {}, 'Parity of other answers'),
        h('ul', {}, outside.map((record) => h('li', { class: parityClass(record) }, `${record.service} ${record.summary}`)))) : '',
      GROUPS.map(([service, title]) => h('div', {},
        h('h3', {}, title),
        h('div', { class: 'scroll' }, h('table', { class: 'catalogue' },
          h('thead', {}, h('tr', {}, ['Status', 'Reason', 'Trigger', 'Reference', '', 'Recorded'].map((text) => h('th', { scope: 'col' }, text)))),
          h('tbody', {}, entries.filter((entry) => entry.service === service).map((entry) => this.row(entry)))))))));
  }

  row(entry) {
    const result = h('td', { class: 'result', 'aria-live': 'polite' });
    const send = async (event) => {
      const button = event.currentTarget;
      button.disabled = true;
      result.textContent = 'sending…';
      try {
        const sent = await api(`/api/v1/rejections/${entry.id}/send`, { method: 'POST', body: {} });
        clear(result,
          h('span', { class: `badge ${sent.produced ? 'produced' : 'rejected'}` }, sent.produced ? 'produced' : 'not produced'), ' ',
          `${sent.status} ${sent.reason ?? ''} `,
          sent.deliveryId !== null ? h('a', { href: `#/deliveries/${sent.deliveryId}` }, `delivery ${sent.deliveryId}`) : '');
      } catch (error) {
        result.textContent = `could not send: ${error.message}`;
      } finally { button.disabled = false; }
    };
    return h('tr', { 'data-entry': entry.id },
      h('td', {}, entry.status), h('td', { class: 'mono' }, entry.reason),
      h('td', {}, entry.trigger, entry.viaFault ? h('span', { class: 'fault-note' }, ` fault: ${entry.faultNote}`) : '',
        (entry.parity ?? []).map((record) => h('div', { class: `parity ${parityClass(record)}`, 'data-parity': record.upstream }, record.summary))),
      h('td', {}, referenceLink(entry.reference)),
      h('td', {}, h('button', { type: 'button', onclick: send, 'aria-label': `Send it: ${entry.reason}` }, 'Send it')),
      result);
  }
}

// Whether a parity record counts an entry's answer: the same service (a Live Activity rule is an APNs answer) and reason.
function counts(entry, record) {
  return record.reason === entry.reason && record.service === (entry.service === 'liveactivity' ? 'apns' : entry.service);
}

function parityClass(record) {
  return record.disagreed > 0 ? 'parity-disagreed' : 'parity-agreed';
}

// Apple's or Google's documentation as a link; PushMock's own docs (a choice where they are silent) as text.
function referenceLink(reference) {
  if (!/^https:\/\//.test(reference)) return reference;
  const host = new URL(reference).hostname;
  const label = host.endsWith('apple.com') ? "Apple's documentation"
    : host.endsWith('rfc-editor.org') ? `RFC ${reference.match(/rfc(\d+)/)?.[1] ?? ''}`.trim()
      : host.includes('autopush') ? "Mozilla's autopush documentation" : "Google's documentation";
  return h('a', { href: reference, target: '_blank', rel: 'noopener noreferrer' }, label);
}
