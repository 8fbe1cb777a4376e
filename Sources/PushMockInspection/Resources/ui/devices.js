// Devices: the registry, seen, added and unregistered through the API.
import { api } from './api.js';
import { clear, h, short } from './dom.js';
import { field, formData, options } from './forms.js';

export class DevicesView {
  async enter(main) {
    this.message = h('p', { role: 'status' });
    this.body = h('tbody');
    const form = h('form', { class: 'add', 'aria-labelledby': 'add-device-title', onsubmit: (event) => this.add(event) },
      h('h3', { id: 'add-device-title' }, 'Add or change a device'),
      field('token', 'Token', h('input', { required: true, size: 40, placeholder: '64 hex digits or an FCM token' })),
      field('bundleId', 'Bundle id', h('input', { placeholder: 'com.example.app' })),
      field('environment', 'Environment', h('select', {}, options(['', 'sandbox', 'production']))),
      field('project', 'FCM project', h('input', { placeholder: 'pushmock-demo' })),
      field('state', 'State', h('select', {}, options(['active', 'unregistered', 'expired']))),
      field('liveActivity', 'Live Activity token', h('select', {}, options(['', 'pushToStart', 'activity']))),
      field('app', 'App', h('select', {}, options(['', 'running', 'not running']))),
      h('button', { class: 'primary' }, 'Save device'));
    clear(main, h('section', { 'aria-labelledby': 'devices-title' },
      h('div', { class: 'bar' }, h('h2', { id: 'devices-title' }, 'Devices')),
      h('p', { class: 'muted' }, 'The device registry: unknown tokens are accepted unless the registry is closed. FCM tokens subscribed to topics are listed with them.'),
      h('div', { class: 'scroll' }, h('table', {}, h('thead', {}, h('tr', {}, ['Token', 'Bundle', 'Environment', 'Project', 'State', 'Live Activity', 'Topics', ''].map((title) => h('th', { scope: 'col' }, title)))), this.body)),
      this.message, form));
    await this.load();
  }

  async load() {
    const { devices } = await api('/api/v1/devices');
    clear(this.body, devices.length ? devices.map((device) => h('tr', {},
      h('td', { class: 'mono', title: device.token }, short(device.token, 28)), h('td', {}, device.bundleId ?? ''), h('td', {}, device.environment ?? ''),
      h('td', {}, device.project ?? ''), h('td', {}, h('span', { class: `badge ${device.state}` }, device.state)), h('td', {}, device.liveActivity ?? '', device.appRunning === undefined ? '' : ` (app ${device.appRunning ? 'running' : 'not running'})`),
      h('td', { class: 'topics' }, (device.topics ?? []).join(', ')),
      h('td', {}, h('button', { type: 'button', class: 'danger', 'aria-label': `Unregister ${device.token}`, onclick: () => this.remove(device.token) }, 'Remove'))))
      : h('tr', {}, h('td', { colspan: 8, class: 'empty' }, 'No devices registered.')));
  }

  async add(event) {
    event.preventDefault();
    const { token, app, ...body } = formData(event.target);
    if (app) body.appRunning = app === 'running';
    try {
      await api(`/api/v1/devices/${encodeURIComponent(token)}`, { method: 'PUT', body });
      this.message.textContent = `Saved ${short(token, 24)}.`;
      event.target.reset();
      await this.load();
    } catch (error) { this.message.textContent = `Refused: ${error.message}`; }
  }

  async remove(token) {
    await api(`/api/v1/devices/${encodeURIComponent(token)}`, { method: 'DELETE' });
    this.message.textContent = `Removed ${short(token, 24)}.`;
    await this.load();
  }
}
