// Test helpers for PushMock's inspection API. Node 18+, no dependencies.
import { spawn } from 'node:child_process';
import https from 'node:https';
import { mkdtempSync, readFileSync, writeFileSync, existsSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, delimiter } from 'node:path';

/** The inspection API answered with an error. */
// Credential folders this process wrote, removed when it exits (one listener for all of them).
const foldersToRemove = new Set();
function removeAtExit(folder) {
  if (foldersToRemove.size === 0) {
    process.once('exit', () => { for (const f of foldersToRemove) rmSync(f, { recursive: true, force: true }); });
  }
  foldersToRemove.add(folder);
}

export class PushMockError extends Error {
  constructor(method, path, status, body) {
    const reason = body && typeof body === 'object' ? (body.reason ?? body.error ?? JSON.stringify(body)) : body;
    super(`${method} ${path}: ${status} ${reason}`);
    this.name = 'PushMockError';
    this.status = status;
    this.body = body;
  }
}

/** A wait ended before enough deliveries matched; `arrived` holds what did arrive. */
export class PushMockTimeoutError extends Error {
  constructor({ count, timeout, filters, matched, arrived }) {
    const wanted = Object.entries(filters).map(([k, v]) => `${k}=${v}`).join(', ') || 'no filter';
    const lines = [`waited ${timeout} ms for ${count} deliveries matching ${wanted}; ${matched.length} matched`];
    if (arrived.length) {
      lines.push(`what arrived (${arrived.length}):`, ...arrived.slice(-10).map((d) => `  #${d.id} ${describe(d)}`));
    } else {
      lines.push('nothing arrived at all: is the code under test pointed at this PushMock?');
    }
    super(lines.join('\n'));
    this.name = 'PushMockTimeoutError';
    Object.assign(this, { count, timeout, filters, matched, arrived });
  }
}

/**
 * For an FCM message sent with android_v2 (AndroidConfigV2): 'remote_notification' or
 * 'background_sync', whichever its union sets; else null.
 */
export function androidV2Kind(d) {
  const config = d?.payload?.message?.android_v2 ?? d?.payload?.message?.androidV2;
  if (!config || typeof config !== 'object') return null;
  if ((config.remote_notification ?? config.remoteNotification) != null) return 'remote_notification';
  if ((config.background_sync ?? config.backgroundSync) != null) return 'background_sync';
  return null;
}

/** One line for a delivery (and an FCM message's android_v2 kind). */
export function describe(d) {
  const target = d.deviceToken ?? d.topic ?? d.path;
  const kind = androidV2Kind(d);
  return `${d.service} ${d.status}${d.reason ? ` ${d.reason}` : ''} ${d.outcome} ${target}${kind ? ` android_v2:${kind}` : ''}`;
}

function query(values) {
  const pairs = Object.entries(values).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => [k, String(v)]);
  return pairs.length ? `?${new URLSearchParams(pairs)}` : '';
}

/** A PushMock's inspection API. */
export class PushMock {
  /** @param {{inspectionUrl?: string, token?: string}} options */
  constructor({ inspectionUrl = 'http://127.0.0.1:2198', token } = {}) {
    this.inspectionUrl = inspectionUrl.replace(/\/+$/, '');
    this.token = token;
    this._credentials = undefined;
  }

  async _request(method, path, body, { timeoutStatusIsData = false } = {}) {
    const headers = { 'x-pushmock-client': 'pushmock-js', accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let response;
    try {
      response = await fetch(this.inspectionUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (error) {
      throw new PushMockError(method, path, 0, `PushMock is not answering at ${this.inspectionUrl}: ${error.cause?.code ?? error.message}`);
    }
    const text = await response.text();
    let decoded = text;
    try { decoded = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    if (response.status === 408 && timeoutStatusIsData) return decoded;
    if (response.status >= 400) throw new PushMockError(method, path, response.status, decoded);
    return decoded;
  }

  /** Whether /readyz says ready. */
  async ready() {
    try { return (await this._request('GET', '/readyz'))?.status === 'ready'; } catch { return false; }
  }

  async waitUntilReady(timeout = 10000) {
    const deadline = Date.now() + timeout;
    while (Date.now() < deadline) {
      if (await this.ready()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new PushMockError('GET', '/readyz', 0, `PushMock at ${this.inspectionUrl} was not ready within ${timeout} ms`);
  }

  /** Recorded deliveries matching `filters`, oldest first. */
  async deliveries(filters = {}, { limit = 1000 } = {}) {
    const answer = await this._request('GET', `/api/v1/deliveries${query({ ...filters, limit })}`);
    return answer.deliveries.slice().reverse();
  }

  /** The newest delivery's id (0 when none): pass it as `after`. */
  async cursor() {
    return (await this._request('GET', '/api/v1/deliveries?limit=1')).newestId ?? 0;
  }

  /** Waits until `count` deliveries match; rejects with PushMockTimeoutError saying what arrived. */
  async waitFor(filters = {}, { count = 1, timeout = 5000, after } = {}) {
    const answer = await this._request('GET', `/api/v1/deliveries/wait${query({ ...filters, count, after, timeout: `${timeout}ms` })}`, undefined, { timeoutStatusIsData: true });
    const matched = (answer?.deliveries ?? []).slice().reverse();
    if (matched.length >= count) return matched;
    const arrived = await this.deliveries(after === undefined ? {} : { after }, { limit: 50 });
    throw new PushMockTimeoutError({ count, timeout, filters, matched, arrived });
  }

  async delivery(id) { return this._request('GET', `/api/v1/deliveries/${id}`); }

  /** Deliveries, faults, devices, activities and tokens back to the server's configuration. */
  async reset() { await this._request('POST', '/api/v1/reset', {}); }

  /** Adds a fault: `{id, match: {service, token, topic, project, path}, reject: {status, reason} | delayMilliseconds | goAway | resetStream, count, probability}`. */
  async addFault(rule) { return this._request('PUT', '/api/v1/faults', { match: {}, ...rule }); }

  async removeFaults() { await this._request('DELETE', '/api/v1/faults'); }

  /** Sets what PushMock knows of a device token (`state`, `bundleId`, `environment`, `project`, `lastActiveAt`, `liveActivity`…). */
  async setDevice(token, record) { return this._request('PUT', `/api/v1/devices/${encodeURIComponent(token)}`, record); }

  /** APNs answers 410 Unregistered from now on; FCM 404 UNREGISTERED. */
  async unregister(token, { atMilliseconds } = {}) {
    return this.setDevice(token, atMilliseconds === undefined ? { state: 'unregistered' } : { state: 'unregistered', unregisteredAt: atMilliseconds });
  }

  /**
   * Mints a Web Push subscription for `service` ('apple', 'mozilla' or 'google'), made with
   * `applicationServerKey` (your VAPID public key, base64url) if given. The answer holds `endpoint`,
   * `expirationTime` and `keys` as a browser's `PushSubscription.toJSON()` gives them.
   */
  async createWebPushSubscription({ service = 'mozilla', applicationServerKey } = {}) {
    const body = applicationServerKey === undefined ? { service } : { service, applicationServerKey };
    return this._request('POST', '/api/v1/web-push/subscriptions', body);
  }

  /** Pushes to the subscription get the service's 410 from now on. */
  async expireWebPushSubscription(id) { return this._request('POST', `/api/v1/web-push/subscriptions/${encodeURIComponent(id)}/expire`, {}); }

  /** A simulated Live Activity with its timeline. */
  async activity(token) { return this._request('GET', `/api/v1/activities/${encodeURIComponent(token)}`); }

  async declareActivityType(name, declaration) { return this._request('PUT', `/api/v1/activity-types/${encodeURIComponent(name)}`, declaration); }

  /**
   * The development credentials (fetched once): `pushUrl`, `caPem`, `caPath`, `apns`,
   * `serviceAccount`, `serviceAccountPath`, `samples`, token makers, and `agent` (an https.Agent)
   * and `fetch` that trust the server's CA, for a server this process started. The files are in a
   * temporary folder that is removed when the process exits.
   */
  async credentials() {
    if (!this._credentials) {
      const resource = await this._request('GET', '/api/v1/credentials');
      const folder = mkdtempSync(join(tmpdir(), 'pushmock-credentials-'));
      removeAtExit(folder);
      const write = (name, text) => { if (text == null) return undefined; const path = join(folder, name); writeFileSync(path, text); return path; };
      this._credentials = {
        ...resource,
        caPath: write('ca.pem', resource.caPem),
        apnsKeyPath: write('apns-key.p8', resource.apns?.p8),
        serviceAccountPath: write('service-account.json', resource.serviceAccount && JSON.stringify(resource.serviceAccount, null, 2)),
        projectId: resource.serviceAccount?.project_id,
        apnsKeyId: resource.apns?.keyId,
        apnsTeamId: resource.apns?.teamId,
        apnsBundleId: resource.apns?.bundleId,
        authorizedUserPath: write('authorized-user.json', resource.authorizedUser && JSON.stringify(resource.authorizedUser, null, 2)),
        sampleDeviceToken: resource.samples?.apnsDeviceToken,
        sampleFid: resource.samples?.fid,
        apnsToken: async () => (await this._request('GET', '/api/v1/credentials/apns-token')).token,
        fcmAccessToken: async () => (await this._request('GET', '/api/v1/credentials/fcm-access-token')).token,
        fcmToken: (name = '') => (name ? registrationToken(name) : resource.samples.fcmRegistrationToken),
      };
      // Node's global fetch trusts only the CAs it was given at process start (NODE_EXTRA_CA_CERTS),
      // and a server started by this process has a CA of its own: an agent and a fetch that trust it.
      const agent = new https.Agent({ ca: resource.caPem, keepAlive: false });
      this._credentials.agent = agent;
      this._credentials.fetch = (url, init) => fetchTrusting(url, init, agent);
    }
    return this._credentials;
  }

  /** The push port's URL. */
  async pushUrl() { return (await this.credentials()).pushUrl; }
}

/**
 * A small `fetch` over node:https through `agent` (which trusts PushMock's CA): `init` takes
 * `method`, `headers` and `body` (a string, Buffer, URLSearchParams or object, sent as JSON); the
 * answer has `status`, `ok`, `headers`, `text()` and `json()`.
 */
function fetchTrusting(url, { method = 'GET', headers = {}, body } = {}, agent) {
  let payload = body;
  const sent = { ...headers };
  const has = (name) => Object.keys(sent).some((key) => key.toLowerCase() === name);
  if (body instanceof URLSearchParams) {
    payload = body.toString();
    if (!has('content-type')) sent['content-type'] = 'application/x-www-form-urlencoded';
  } else if (body !== undefined && typeof body !== 'string' && !Buffer.isBuffer(body)) {
    payload = JSON.stringify(body);
    if (!has('content-type')) sent['content-type'] = 'application/json';
  }
  return new Promise((resolve, reject) => {
    const request = https.request(url, { method, headers: sent, agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: response.statusCode,
          ok: response.statusCode >= 200 && response.statusCode < 300,
          headers: response.headers,
          text: async () => text,
          json: async () => JSON.parse(text),
        });
      });
    });
    request.on('error', reject);
    if (payload !== undefined) request.write(payload);
    request.end();
  });
}

/** A real-shaped FCM registration token; `name` makes distinct ones. */
export function registrationToken(name) {
  const b64 = (text) => Buffer.from(text).toString('base64url');
  return `${b64(`pushmock-${name}`)}:APA91b${(b64(name) + 'Pm0').repeat(40).slice(0, 140)}`;
}

/** `binary`, else $PUSHMOCK_BIN, else `pushmock` on PATH. */
export function findBinary(binary) {
  const candidates = [binary, process.env.PUSHMOCK_BIN, ...(process.env.PATH ?? '').split(delimiter).map((dir) => dir && join(dir, 'pushmock'))];
  const found = candidates.find((path) => path && existsSync(path) && statSync(path).isFile());
  if (!found) {
    throw new Error('pushmock binary not found: set PUSHMOCK_BIN to its path, put it on PATH, or pass {binary} (the release archive has it)');
  }
  return found;
}

/**
 * Starts `pushmock serve` on free ports with its own data directory. `options` are serve's flags in
 * camel case (`{store: 'sqlite:/tmp/p.sqlite', liveActivityProfile: 'apple'}`). Resolves to a
 * PushMock with `ports` and `stop()`.
 */
export async function startPushMock({ binary, timeout = 30000, ...options } = {}) {
  const executable = findBinary(binary);
  const folder = mkdtempSync(join(tmpdir(), 'pushmock-'));
  const portsFile = join(folder, 'ports.json');
  const flags = { port: 0, inspectionPort: 0, dataDir: join(folder, 'data'), ...options };
  const args = ['serve', '--ports-file', portsFile];
  for (const [name, value] of Object.entries(flags)) {
    const flag = `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    if (value === true) args.push(flag);
    else if (value === false || value == null) continue;
    else for (const item of [].concat(value)) args.push(flag, String(item));
  }
  const child = spawn(executable, args, { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    if (existsSync(portsFile) && statSync(portsFile).size > 0) {
      const ports = JSON.parse(readFileSync(portsFile, 'utf8'));
      const server = new PushMock({ inspectionUrl: `http://127.0.0.1:${ports.inspection}` });
      server.ports = ports;
      server.process = child;
      server.log = () => output;
      server.stop = () => new Promise((resolve) => {
        if (child.exitCode !== null) { rmSync(folder, { recursive: true, force: true }); resolve(); return; }
        const killer = setTimeout(() => child.kill('SIGKILL'), 10000);
        child.once('exit', () => { clearTimeout(killer); rmSync(folder, { recursive: true, force: true }); resolve(); });
        child.kill('SIGTERM');
      });
      await server.waitUntilReady(Math.max(1000, deadline - Date.now()));
      return server;
    }
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
  throw new PushMockError('start', `${executable} ${args.join(' ')}`, child.exitCode ?? 0, `pushmock serve did not start: ${output.trim().slice(-2000)}`);
}
