// Small DOM helpers: elements without innerHTML (nothing recorded is ever parsed as HTML).
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name === 'class') element.className = value;
    else element.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

export function clear(element, ...children) {
  element.replaceChildren(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  return element;
}

export function time(value) {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleTimeString([], { hour12: false }) + '.' + String(date.getMilliseconds()).padStart(3, '0');
}

export function duration(ms) {
  if (ms <= 0) return 'passed';
  const minutes = Math.floor(ms / 60000);
  return minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
}

export function outcomeBadge(delivery) {
  const label = delivery.outcome === 'dropped' ? 'dropped by device' : delivery.outcome;
  return h('span', { class: `badge ${delivery.outcome}` }, label);
}

export function short(text, length = 16) {
  if (!text) return '';
  return text.length > length ? `${text.slice(0, length - 6)}…${text.slice(-5)}` : text;
}

// The title and body a person would see: APNs aps.alert, FCM notification, a data message, or a
// Web Push payload's (decrypted) title and body, Declarative Web Push's under `notification`.
export function alertText(delivery) {
  const payload = delivery.payload;
  if (!payload || typeof payload !== 'object') return ['', ''];
  if (delivery.service === 'webpush') {
    const shown = payload.notification && typeof payload.notification === 'object' ? payload.notification : payload;
    return [typeof shown.title === 'string' ? shown.title : '', typeof shown.body === 'string' ? shown.body : ''];
  }
  // FCM's android_v2 (AndroidConfigV2): an urgent remote notification, or a background sync.
  const androidV2 = payload.message?.android_v2 ?? payload.message?.androidV2;
  const remote = androidV2?.remote_notification ?? androidV2?.remoteNotification;
  const alert = payload.aps?.alert ?? payload.message?.notification ?? remote?.notification ?? payload.message?.apns?.payload?.aps?.alert;
  if (typeof alert === 'string') return [alert, ''];
  if (alert && typeof alert === 'object') {
    return [alert.title ?? alert['title-loc-key'] ?? alert.title_loc_key ?? alert.titleLocKey ?? '', alert.body ?? alert['loc-key'] ?? alert.body_loc_key ?? alert.bodyLocKey ?? ''];
  }
  if (payload.aps?.event) return [`Live Activity ${payload.aps.event}`, ''];
  if (androidV2?.background_sync ?? androidV2?.backgroundSync) return ['Background sync (android_v2)', ''];
  return ['', ''];
}

// JSON pretty-printed as elements; each value carries its path (aps.alert.title, a[0]) so that
// a rule's path can be highlighted.
export function jsonView(value, highlight) {
  const root = h('pre', { class: 'json' });
  let marked = null;
  const render = (node, path, indent, container, key) => {
    const line = h('span', { class: 'line', 'data-path': path });
    const pad = '  '.repeat(indent);
    line.append(pad);
    if (key !== undefined) line.append(h('span', { class: 'key' }, JSON.stringify(key)), ': ');
    if (highlight && path === highlight) { line.classList.add('highlight'); marked = line; }
    container.append(line);
    if (Array.isArray(node) || (node && typeof node === 'object')) {
      const entries = Array.isArray(node) ? node.map((item, index) => [index, item]) : Object.entries(node);
      line.append(Array.isArray(node) ? '[' : '{');
      const block = h('span', { class: 'block' });
      line.append(block);
      entries.forEach(([childKey, child], index) => {
        block.append('\n');
        const childPath = Array.isArray(node) ? `${path}[${childKey}]` : (path ? `${path}.${childKey}` : String(childKey));
        render(child, childPath, indent + 1, block, Array.isArray(node) ? undefined : childKey);
        if (index < entries.length - 1) block.append(',');
      });
      line.append(entries.length ? `\n${pad}` : '', Array.isArray(node) ? ']' : '}');
    } else {
      line.append(h('span', { class: `value ${node === null ? 'null' : typeof node}` }, JSON.stringify(node)));
    }
  };
  render(value, '', 0, root);
  return { element: root, marked };
}

// What changed in a content-state between two pushes: added, removed and changed keys (nested
// objects by path).
export function diff(before, after, path = '') {
  const changes = [];
  const isObject = (value) => value && typeof value === 'object' && !Array.isArray(value);
  if (isObject(before) && isObject(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const childPath = path ? `${path}.${key}` : key;
      if (!(key in before)) changes.push({ kind: 'added', path: childPath, after: after[key] });
      else if (!(key in after)) changes.push({ kind: 'removed', path: childPath, before: before[key] });
      else changes.push(...diff(before[key], after[key], childPath));
    }
  } else if (JSON.stringify(before) !== JSON.stringify(after)) {
    changes.push({ kind: 'changed', path: path || '(all)', before, after });
  }
  return changes;
}

// What the relay's upstream answered: its status and reason, marked when it disagrees with
// PushMock's own answer.
export function relayBadge(relay) {
  if (!relay) return null;
  if (relay.status === undefined) return h('span', { class: 'badge relay failed', title: `relay to ${relay.upstream}: ${relay.error ?? 'no answer'}` }, 'relay failed');
  const label = `upstream ${relay.status}${relay.reason ? ` ${relay.reason}` : ''}`;
  return h('span', { class: `badge relay ${relay.agrees ? 'agrees' : 'disagrees'}`, title: relay.agrees ? `${relay.upstream} agrees` : `${relay.upstream} disagrees with PushMock` }, relay.agrees ? label : `≠ ${label}`);
}
