// What the views share: the rejections catalogue (fetched once) and the live delivery feed.
import { api } from './api.js';

let catalogue = null;
export function rejections() {
  catalogue ??= api('/api/v1/rejections').then((list) => list.entries).catch((error) => { catalogue = null; throw error; });
  return catalogue;
}

const listeners = new Set();
export function onDelivery(listener) { listeners.add(listener); return () => listeners.delete(listener); }
export function publish(delivery) { for (const listener of listeners) listener(delivery); }

// What relay upstreams answered, as it arrives ({deliveryId, relay}).
const relayListeners = new Set();
export function onRelay(listener) { relayListeners.add(listener); return () => relayListeners.delete(listener); }
export function publishRelay(event) { for (const listener of relayListeners) listener(event); }
