// The inspection API as the page uses it: JSON in and out, the guard header on every call, and
// the inspection token (asked once per tab, kept in sessionStorage) when the server wants one.
const TOKEN = 'pushmock-inspection-token';

export class APIError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

export function token() { return sessionStorage.getItem(TOKEN); }

let asking = null;
function askToken() {
  asking ??= new Promise((resolve) => {
    const dialog = document.getElementById('token-dialog');
    const input = document.getElementById('token-input');
    input.value = '';
    dialog.addEventListener('close', () => {
      asking = null;
      if (input.value) sessionStorage.setItem(TOKEN, input.value);
      resolve(Boolean(input.value));
    }, { once: true });
    dialog.showModal();
  });
  return asking;
}

const tokenRequired = document.querySelector('meta[name="pushmock-inspection-token"]')?.content === 'required';

export async function api(path, { method = 'GET', body, text = false } = {}) {
  if (tokenRequired && !token()) await askToken();
  for (;;) {
    const headers = { 'x-pushmock-client': 'web' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (token()) headers.authorization = `Bearer ${token()}`;
    const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (response.status === 401 && await askToken()) continue;
    const type = response.headers.get('content-type') || '';
    const data = text || !type.includes('json') ? await response.text() : await response.json();
    if (!response.ok) throw new APIError(response.status, data?.error ?? String(data));
    return data;
  }
}

// An EventSource on /api/v1/events (the token goes in the query: EventSource sends no headers).
export function events(query, onDelivery, onState, onRelay = () => {}) {
  const params = new URLSearchParams(query);
  if (token()) params.set('access_token', token());
  const source = new EventSource(`/api/v1/events?${params}`);
  source.addEventListener('delivery', (event) => onDelivery(JSON.parse(event.data)));
  source.addEventListener('activity', () => onDelivery(null));
  source.addEventListener('relay', (event) => onRelay(JSON.parse(event.data)));
  source.onopen = () => onState('live');
  source.onerror = () => onState(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
  return source;
}
