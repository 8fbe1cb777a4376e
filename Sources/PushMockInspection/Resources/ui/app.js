// The page: one view at a time, chosen by the hash (#/deliveries, #/deliveries/42, #/activities,
// #/devices, #/web-push, #/faults, #/rejections). Deliveries arrive over one Server-Sent Events stream.
import { api, events } from './api.js';
import { clear, h } from './dom.js';
import { DeliveriesView, showDelivery } from './deliveries.js';
import { ActivitiesView } from './activities.js';
import { DevicesView } from './devices.js';
import { FaultsView } from './faults.js';
import { RejectionsView } from './rejections.js';
import { WebPushView } from './webpush.js';

import { onDelivery, onRelay, publish, publishRelay } from './state.js';

const main = document.getElementById('main');
const live = document.getElementById('live');

const deliveries = new DeliveriesView();
const views = {
  deliveries: () => deliveries,
  activities: () => new ActivitiesView(),
  devices: () => new DevicesView(),
  'web-push': () => new WebPushView(),
  faults: () => new FaultsView(),
  rejections: () => new RejectionsView(),
};

let current = null;
async function route() {
  const [, name = 'deliveries', id] = location.hash.split('/');
  for (const link of document.querySelectorAll('nav a')) {
    link.toggleAttribute('aria-current', link.dataset.view === name);
    if (link.dataset.view === name) link.setAttribute('aria-current', 'page');
  }
  current?.leave?.();
  current = null;
  try {
    if (name === 'deliveries' && id) {
      await showDelivery(main, Number(id));
    } else {
      current = (views[name] ?? views.deliveries)();
      await current.enter(main);
    }
  } catch (error) {
    clear(main, h('p', { class: 'error', role: 'alert' }, `PushMock answered: ${error.message}`));
  }
}

async function start() {
  let newest = 0;
  try {
    newest = (await api('/api/v1/deliveries?limit=1')).newestId ?? 0;
  } catch (error) {
    live.textContent = `not connected: ${error.message}`;
  }
  const connect = (after) => events({ after }, (delivery) => {
    if (delivery) newest = Math.max(newest, delivery.id);
    publish(delivery);
  }, (state) => {
    live.textContent = state;
    live.className = `live ${state}`;
  }, publishRelay);
  let source = connect(newest);
  // A page leaving (or entering the back-forward cache) gives its stream back: browsers allow
  // six connections per host, and a stream held by a hidden page would count against them.
  window.addEventListener('pagehide', () => source.close());
  window.addEventListener('pageshow', (event) => { if (event.persisted) source = connect(newest); });
  deliveries.listen(onDelivery, onRelay);
  window.addEventListener('hashchange', route);
  await route();
}

start();
