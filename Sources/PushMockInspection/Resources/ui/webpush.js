// Web Push: the subscriptions PushMock minted, each as a browser's PushSubscription.toJSON() gives
// it (paste it into an application server's send call); mint, expire and remove them.
import { api } from './api.js';
import { clear, h, short, time } from './dom.js';
import { field, formData, options } from './forms.js';

export class WebPushView {
  async enter(main) {
    this.message = h('p', { role: 'status' });
    this.body = h('tbody');
    this.shown = h('pre', { class: 'subscription-json', 'aria-label': 'Subscription JSON', hidden: true });
    const form = h('form', { class: 'add', 'aria-labelledby': 'mint-title', onsubmit: (event) => this.mint(event) },
      h('h3', { id: 'mint-title' }, 'Mint a subscription'),
      field('service', 'Push service', h('select', { required: true }, options(['apple', 'mozilla', 'google']))),
      field('applicationServerKey', 'Application server key', h('input', { size: 48, placeholder: 'VAPID public key, base64url (optional)' })),
      h('button', { class: 'primary' }, 'Mint'));
    clear(main, h('section', { 'aria-labelledby': 'webpush-title' },
      h('div', { class: 'bar' }, h('h2', { id: 'webpush-title' }, 'Web Push subscriptions')),
      h('p', { class: 'muted' }, 'Endpoints on this server in each service’s shape: pushes sent to them are checked as Apple, Mozilla or Google check them, decrypted with the keys PushMock holds, and recorded. An expired subscription answers 410.'),
      h('div', { class: 'scroll' }, h('table', { class: 'subscriptions' },
        h('thead', {}, h('tr', {}, ['Service', 'Endpoint', 'State', 'VAPID key', 'Made', ''].map((title) => h('th', { scope: 'col' }, title)))), this.body)),
      this.message, this.shown, form));
    await this.load();
  }

  async load() {
    const { subscriptions } = await api('/api/v1/web-push/subscriptions');
    clear(this.body, subscriptions.length ? subscriptions.map((subscription) => h('tr', { 'data-subscription': subscription.id },
      h('td', {}, subscription.service),
      h('td', { class: 'mono', title: subscription.endpoint }, short(subscription.endpoint, 56)),
      h('td', {}, h('span', { class: `badge ${subscription.state}` }, subscription.state)),
      h('td', { class: 'mono', title: subscription.applicationServerKey ?? '' }, subscription.applicationServerKey ? short(subscription.applicationServerKey, 20) : 'none'),
      h('td', {}, time(subscription.createdAt)),
      h('td', { class: 'actions' },
        h('button', { type: 'button', 'aria-label': `Show the JSON of ${subscription.id}`, onclick: () => this.show(subscription) }, 'JSON'),
        subscription.state === 'active' ? h('button', { type: 'button', 'aria-label': `Expire ${subscription.id}`, onclick: () => this.act(subscription, 'expire') }, 'Expire') : '',
        h('button', { type: 'button', class: 'danger', 'aria-label': `Remove ${subscription.id}`, onclick: () => this.act(subscription, 'remove') }, 'Remove'))))
      : h('tr', {}, h('td', { colspan: 6, class: 'empty' }, 'No subscriptions yet: mint one below, or with POST /api/v1/web-push/subscriptions.')));
  }

  // The subscription as an application server stores it.
  show(subscription) {
    const { endpoint, expirationTime, keys } = subscription;
    this.shown.textContent = JSON.stringify({ endpoint, expirationTime, keys }, null, 2);
    this.shown.hidden = false;
  }

  async mint(event) {
    event.preventDefault();
    try {
      const subscription = await api('/api/v1/web-push/subscriptions', { method: 'POST', body: formData(event.target) });
      await this.load();
      this.message.textContent = `Minted a ${subscription.service} subscription.`;
      this.show(subscription);
    } catch (error) { this.message.textContent = `Refused: ${error.message}`; }
  }

  async act(subscription, action) {
    const path = `/api/v1/web-push/subscriptions/${encodeURIComponent(subscription.id)}`;
    await api(action === 'expire' ? `${path}/expire` : path, { method: action === 'expire' ? 'POST' : 'DELETE' });
    await this.load();
    this.message.textContent = `${action === 'expire' ? 'Expired' : 'Removed'} ${short(subscription.id, 24)}.`;
  }
}
