// Live Activities: each simulated activity drawn as a lock-screen card with a compact Dynamic
// Island, its limits, and its timeline (every push, applied or dropped and why, with a diff of
// content-state). Redrawn when a delivery or activity event arrives, never by polling.
import { api } from './api.js';
import { clear, diff, duration, h, short, time } from './dom.js';
import { onDelivery } from './state.js';

const ACTIVE_LIMIT = 8 * 3600 * 1000;
const LOCK_SCREEN_LIMIT = 12 * 3600 * 1000;

function label(key) {
  return key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[-_]/g, ' ').replace(/^./, (c) => c.toUpperCase());
}

function shown(value) {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function fields(object, decoded) {
  if (!object || typeof object !== 'object') return h('p', { class: 'muted' }, 'none');
  return h('dl', { class: 'fields' }, Object.entries(object).flatMap(([key, value]) => {
    const typed = decoded && typeof decoded === 'object' ? decoded[key] : undefined;
    const isDate = typeof typed === 'string' && /^\d{4}-\d\d-\d\dT/.test(typed) && typeof value === 'number';
    return [h('dt', {}, label(key)),
      h('dd', { title: isDate ? `${value} as the device reads it` : '' }, isDate ? new Date(typed).toLocaleString() : shown(typed ?? value))];
  }));
}

export class ActivitiesView {
  async enter(main) {
    this.main = main;
    this.list = h('div', { class: 'activities' });
    clear(main, h('section', { 'aria-labelledby': 'activities-title' },
      h('div', { class: 'bar' }, h('h2', { id: 'activities-title' }, 'Live Activities'),
        h('span', { class: 'muted' }, 'simulated devices: what the lock screen would show')),
      this.list));
    let timer;
    this.unsubscribe = onDelivery(() => { clearTimeout(timer); timer = setTimeout(() => this.load(), 150); });
    await this.load();
  }

  leave() { this.unsubscribe?.(); }

  async load() {
    const { activities } = await api('/api/v1/activities');
    const details = await Promise.all(activities.map((activity) => api(`/api/v1/activities/${encodeURIComponent(activity.id)}`)));
    const cards = await Promise.all(details.map((activity) => this.card(activity)));
    clear(this.list, cards.length ? cards : h('p', { class: 'empty' }, 'No Live Activity yet. Start one: pushmock send apns --live-activity start'));
  }

  // The alert the device last showed: the newest applied push that carried one.
  async alertOf(activity) {
    const applied = activity.timeline.filter((entry) => entry.deliveryId !== null && entry.deviceOutcome === 'applied').reverse().slice(0, 5);
    for (const entry of applied) {
      const delivery = await api(`/api/v1/deliveries/${entry.deliveryId}`).catch(() => null);
      const aps = delivery?.payload?.aps ?? delivery?.payload?.message?.apns?.payload?.aps;
      if (aps?.alert) return aps.alert;
    }
    return null;
  }

  async card(activity) {
    const alert = await this.alertOf(activity);
    const started = Date.parse(activity.startedAt);
    const now = Date.now();
    const content = activity.decodedContentState ?? activity.contentState;
    const island = content && typeof content === 'object' ? Object.values(content).slice(0, 2).map(shown) : [];
    return h('article', { class: `activity ${activity.state}`, 'aria-label': `Live Activity ${activity.attributesType ?? activity.id}`, tabindex: 0, 'data-activity': activity.id },
      h('div', { class: 'lock-screen' },
        h('header', {},
          h('strong', {}, activity.attributesType ?? 'Live Activity'),
          h('span', { class: `badge ${activity.state}` }, activity.state)),
        h('div', { class: 'island', 'aria-label': 'Dynamic Island, compact' },
          h('span', { class: 'leading' }, island[0] ?? '●'), h('span', { class: 'camera' }), h('span', { class: 'trailing' }, island[1] ?? '')),
        alert && h('p', { class: 'alert' }, typeof alert === 'string' ? alert : [h('b', {}, alert.title ?? ''), ' ', alert.body ?? '']),
        h('h4', {}, 'Content state', activity.decodedContentState ? h('span', { class: 'typed' }, ` decoded as ${activity.attributesType}.ContentState`) : ''),
        fields(activity.contentState, activity.decodedContentState),
        activity.pendingRender && h('p', { class: 'pending-render' },
          `Next render ${new Date(activity.pendingRender.rendersAt).toLocaleTimeString()}: the device shows the newest update then, unless a later one replaces it`),
        h('h4', {}, 'Attributes'), fields(activity.attributes),
        h('p', { class: 'limits' },
          activity.endedAt
            ? `ended ${new Date(activity.endedAt).toLocaleTimeString()}${activity.dismissAt ? ` · leaves the lock screen ${new Date(activity.dismissAt).toLocaleTimeString()}` : ''}`
            : `8 h active limit: ${duration(started + ACTIVE_LIMIT - now)} left`,
          ` · 12 h lock-screen limit: ${duration(started + LOCK_SCREEN_LIMIT - now)} left`,
          activity.staleDate ? ` · stale at ${new Date(activity.staleDate * 1000).toLocaleTimeString()}` : ''),
        h('p', { class: 'mono muted' }, `token ${short(activity.token ?? activity.id, 28)} · ${activity.pushes} pushes`)),
      this.timeline(activity));
  }

  timeline(activity) {
    let previous = null;
    const rows = activity.timeline.map((entry) => {
      const changes = entry.deviceOutcome === 'applied' && entry.contentState ? diff(previous ?? {}, entry.contentState) : [];
      if (entry.deviceOutcome === 'applied' && entry.contentState) previous = entry.contentState;
      return h('li', { class: entry.deviceOutcome },
        h('div', {},
          h('time', { datetime: entry.receivedAt }, time(entry.receivedAt)), ' ',
          h('b', {}, entry.event), ' ',
          h('span', { class: `badge ${entry.deviceOutcome}` }, entry.deviceOutcome),
          entry.deliveryId !== null ? [' ', h('a', { href: `#/deliveries/${entry.deliveryId}` }, `#${entry.deliveryId}`)] : '',
          entry.rendersAt && entry.rendersAt !== entry.receivedAt && entry.deviceOutcome === 'applied'
            ? h('span', { class: 'muted' }, ` shown ${time(entry.rendersAt)}`) : ''),
        entry.reason && h('p', { class: 'why' }, `${entry.reason}: ${entry.explanation ?? ''}`),
        changes.length > 0 && h('ul', { class: 'diff' }, changes.map((change) => h('li', { class: change.kind },
          change.kind === 'added' ? `+ ${change.path}: ${shown(change.after)}`
            : change.kind === 'removed' ? `− ${change.path}: ${shown(change.before)}`
              : `~ ${change.path}: ${shown(change.before)} → ${shown(change.after)}`))));
    });
    return h('div', { class: 'timeline' }, h('h4', {}, 'Timeline'), h('ol', {}, rows));
  }
}
