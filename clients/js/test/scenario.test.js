// The scenario every PushMock helper runs (Python, JavaScript, Go), against a real pushmock serve:
// the one at PUSHMOCK_URL, or one started here (PUSHMOCK_BIN or PATH). APNs goes over node:http2,
// OAuth and FCM over fetch (which trusts PushMock's CA through NODE_EXTRA_CA_CERTS when it is set,
// or takes the CA this test fetched through the https module's agent otherwise).
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import https from 'node:https';
import { createSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PushMock, PushMockError, PushMockTimeoutError, androidV2Kind, describe, startPushMock } from '../index.js';

const DEVICE = 'ab'.repeat(32);
const PUSH_TO_START = '5a'.repeat(80);
let pushmock;
let started;
let credentials;
let providerToken;

before(async () => {
  if (process.env.PUSHMOCK_URL) {
    pushmock = new PushMock({ inspectionUrl: process.env.PUSHMOCK_URL, token: process.env.PUSHMOCK_TOKEN });
    await pushmock.waitUntilReady();
  } else {
    started = await startPushMock();
    pushmock = started;
  }
  credentials = await pushmock.credentials();
  providerToken = await credentials.apnsToken();
});
after(async () => { await started?.stop(); });
beforeEach(async () => { await pushmock.reset(); });

/** An APNs push over HTTP/2 (node:http2), trusting PushMock's CA. */
async function apns(token, aps, { pushType = 'alert', topic = 'com.example.app' } = {}) {
  const client = http2.connect(credentials.pushUrl, { ca: credentials.caPem });
  try {
    return await new Promise((resolve, reject) => {
      const request = client.request({
        ':method': 'POST', ':path': `/3/device/${token}`, authorization: `bearer ${providerToken}`,
        'apns-topic': topic, 'apns-push-type': pushType, 'apns-priority': '10',
      });
      let status; let text = '';
      request.on('response', (headers) => { status = headers[':status']; });
      request.on('data', (chunk) => { text += chunk; });
      request.on('end', () => resolve({ status, body: text ? JSON.parse(text) : null }));
      request.on('error', reject);
      request.end(JSON.stringify({ aps }));
    });
  } finally { client.close(); }
}

/** Whether Node started trusting this server's CA (NODE_EXTRA_CA_CERTS holds it), so fetch can reach it. */
function fetchTrustsCA() {
  try { return readFileSync(process.env.NODE_EXTRA_CA_CERTS ?? '', 'utf8').includes(credentials.caPem.trim()); } catch { return false; }
}

/** POST over HTTPS: fetch when NODE_EXTRA_CA_CERTS trusts the CA, else node:https with it. */
async function post(url, body, headers) {
  if (fetchTrustsCA()) {
    const response = await fetch(url, { method: 'POST', headers, body });
    return { status: response.status, body: JSON.parse((await response.text()) || 'null') };
  }
  return new Promise((resolve, reject) => {
    const request = https.request(url, { method: 'POST', headers, ca: credentials.caPem }, (response) => {
      let text = '';
      response.on('data', (chunk) => { text += chunk; });
      response.on('end', () => resolve({ status: response.statusCode, body: JSON.parse(text || 'null') }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** Google's OAuth: an RS256 assertion signed with the served service account, exchanged at its token_uri. */
async function accessToken() {
  const account = credentials.serviceAccount;
  const now = Math.floor(Date.now() / 1000);
  const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${b64({ alg: 'RS256', typ: 'JWT', kid: account.private_key_id })}.${b64({
    iss: account.client_email, scope: 'https://www.googleapis.com/auth/firebase.messaging', aud: account.token_uri, iat: now, exp: now + 3600,
  })}`;
  const signature = createSign('RSA-SHA256').update(input).sign(account.private_key).toString('base64url');
  const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: `${input}.${signature}` });
  const { status, body } = await post(account.token_uri, form.toString(), { 'content-type': 'application/x-www-form-urlencoded' });
  assert.equal(status, 200, JSON.stringify(body));
  return body.access_token;
}

async function fcm(message) {
  return post(`${credentials.pushUrl}/v1/projects/${credentials.projectId}/messages:send`, JSON.stringify({ message }), {
    authorization: `Bearer ${await accessToken()}`, 'content-type': 'application/json',
  });
}

test('an APNs alert and an FCM message are sent and waited for', async () => {
  const cursor = await pushmock.cursor();
  assert.equal((await apns(DEVICE, { alert: { title: 'Hello', body: 'from JavaScript' } })).status, 200);
  const token = credentials.fcmToken();
  const sent = await fcm({ token, notification: { title: 'Hello' } });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  assert.match(sent.body.name, new RegExp(`^projects/${credentials.projectId}/messages/`));
  const [alert] = await pushmock.waitFor({ service: 'apns', token: DEVICE }, { after: cursor });
  assert.equal(alert.outcome, 'accepted');
  assert.equal(alert.protocol, 'HTTP/2');
  assert.equal(alert.payload.aps.alert.title, 'Hello');
  const [message] = await pushmock.waitFor({ service: 'fcm' }, { after: cursor });
  assert.equal(message.deviceToken, token);
});

test('android_v2 messages are accepted and told apart', async () => {
  const cursor = await pushmock.cursor();
  const token = credentials.fcmToken();
  const remote = { token, android_v2: { remote_notification: { notification: { title: 'Goal', body: '2-1' } } } };
  assert.equal((await fcm(remote)).status, 200);
  assert.equal((await fcm({ token, data: { sync: 'inbox' }, androidV2: { backgroundSync: {} } })).status, 200);
  const refused = await fcm({ token, android: {}, android_v2: { background_sync: {} } });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.equal(refused.body.error.status, 'INVALID_ARGUMENT');
  const [first, second, third] = await pushmock.waitFor({ service: 'fcm' }, { count: 3, after: cursor });
  assert.deepEqual([first, second].map(androidV2Kind), ['remote_notification', 'background_sync']);
  assert.match(describe(first), / android_v2:remote_notification$/);
  assert.equal(third.outcome, 'rejected');
});

test('a Live Activity start, update and end land on one timeline', async () => {
  const now = Math.floor(Date.now() / 1000);
  const options = { pushType: 'liveactivity', topic: 'com.example.app.push-type.liveactivity' };
  const start = {
    event: 'start', timestamp: now, 'content-state': { score: '0-0' }, 'attributes-type': 'MatchAttributes',
    attributes: { home: 'A', away: 'B' }, alert: { title: 'Kick-off', body: 'A v B' }, 'input-push-token': 1,
  };
  assert.equal((await apns(PUSH_TO_START, start, options)).status, 200);
  const [startDelivery] = await pushmock.waitFor({ token: PUSH_TO_START });
  const activityToken = startDelivery.issuedActivityToken;
  assert.ok(activityToken, JSON.stringify(startDelivery));
  assert.equal((await apns(activityToken, { event: 'update', timestamp: now + 1, 'content-state': { score: '1-0' } }, options)).status, 200);
  assert.equal((await apns(activityToken, { event: 'end', timestamp: now + 2, 'content-state': { score: '1-0' } }, options)).status, 200);
  await pushmock.waitFor({ token: activityToken }, { count: 2 });
  const activity = await pushmock.activity(activityToken);
  assert.deepEqual(activity.timeline.map((entry) => entry.event), ['start', 'update', 'end']);
  assert.deepEqual(activity.contentState, { score: '1-0' });
  assert.equal(activity.state, 'ended');
});

test('a count: 1 fault fires once', async () => {
  await pushmock.addFault({ id: 'busy', match: { service: 'apns', token: DEVICE }, reject: { status: 429, reason: 'TooManyRequests' }, count: 1 });
  assert.deepEqual(await apns(DEVICE, { alert: 'one' }), { status: 429, body: { reason: 'TooManyRequests' } });
  assert.equal((await apns(DEVICE, { alert: 'two' })).status, 200);
  assert.deepEqual((await pushmock.waitFor({ service: 'apns' }, { count: 2 })).map((d) => d.status), [429, 200]);
});

test('a fault sequence answers each step in turn', async () => {
  await pushmock.addFault({
    id: 'retry', match: { service: 'apns', token: DEVICE },
    sequence: [{ reject: { reason: 'ServiceUnavailable' } }, { reject: { reason: 'TooManyRequests' } }, { accept: true }],
  });
  const statuses = [];
  for (const n of [1, 2, 3, 4]) statuses.push((await apns(DEVICE, { alert: String(n) })).status);
  assert.deepEqual(statuses, [503, 429, 200, 200]);
  assert.deepEqual((await pushmock.waitFor({ service: 'apns' }, { count: 4 })).map((d) => d.fault ?? null), ['retry', 'retry', null, null]);
});

test('an unregistered device is answered 410, and 404 UNREGISTERED', async () => {
  await pushmock.unregister(DEVICE, { atMilliseconds: 1767225600000 });
  assert.deepEqual(await apns(DEVICE, { alert: 'gone' }), { status: 410, body: { reason: 'Unregistered', timestamp: 1767225600000 } });
  const token = credentials.fcmToken('gone');
  await pushmock.unregister(token);
  const { status, body } = await fcm({ token, data: { k: 'v' } });
  assert.equal(status, 404);
  assert.equal(body.error.details[0].errorCode, 'UNREGISTERED');
});

test('a reset clears everything', async () => {
  await pushmock.addFault({ id: 'all', match: { service: 'apns' }, reject: { status: 500, reason: 'InternalServerError' } });
  await pushmock.unregister(DEVICE);
  await apns(DEVICE, { alert: 'x' });
  assert.ok((await pushmock.waitFor({ service: 'apns' })).length > 0);
  await pushmock.reset();
  assert.deepEqual(await pushmock.deliveries(), []);
  assert.equal(await pushmock.cursor(), 0);
  assert.equal((await apns(DEVICE, { alert: 'after the reset' })).status, 200);
});

test('a wait that times out says what arrived', async () => {
  await apns(DEVICE, { alert: 'not what the test waits for' });
  const began = Date.now();
  await assert.rejects(pushmock.waitFor({ service: 'fcm' }, { timeout: 500 }), (error) => {
    assert.ok(error instanceof PushMockTimeoutError);
    assert.match(error.message, /service=fcm/);
    assert.match(error.message, /0 matched/);
    assert.match(error.message, new RegExp(`apns 200 accepted ${DEVICE}`));
    assert.equal(error.arrived.at(-1).service, 'apns');
    return true;
  });
  const took = Date.now() - began;
  assert.ok(took >= 400 && took < 5000, `${took} ms`);
});

test('a server that does not answer is an error, not a skip', async () => {
  await assert.rejects(new PushMock({ inspectionUrl: 'http://127.0.0.1:9' }).deliveries(), (error) => {
    assert.ok(error instanceof PushMockError);
    assert.match(error.message, /not answering/);
    return true;
  });
});

test('the credentials carry the shared names', async () => {
  // The same names in every helper (docs/testing-from-any-language.md), in this language's casing.
  assert.match(credentials.pushUrl, /^https:\/\//);
  assert.match(credentials.caPem, /^-----BEGIN CERTIFICATE-----/);
  assert.equal(readFileSync(credentials.caPath, 'utf8'), credentials.caPem);
  assert.deepEqual([credentials.apnsKeyId, credentials.apnsTeamId, credentials.apnsBundleId], ['PUSHMOCK01', 'PMTEAM0001', 'com.example.app']);
  assert.match(readFileSync(credentials.apnsKeyPath, 'utf8'), /^-----BEGIN PRIVATE KEY-----/);
  assert.equal(JSON.parse(readFileSync(credentials.serviceAccountPath, 'utf8')).project_id, 'pushmock-demo');
  assert.equal(credentials.projectId, 'pushmock-demo');
  assert.equal(JSON.parse(readFileSync(credentials.authorizedUserPath, 'utf8')).type, 'authorized_user');
  assert.equal(credentials.sampleDeviceToken.length, 64);
  assert.equal(credentials.sampleFid.length, 22);
});

test('a Web Push to a minted subscription is recorded, and an expired one answers 410', async () => {
  const subscription = await pushmock.createWebPushSubscription({ service: 'mozilla' });
  assert.ok(subscription.endpoint.startsWith(`${credentials.pushUrl}/wpush/v1/`) && subscription.keys.p256dh && subscription.keys.auth);
  // A push without a payload: no encryption needed, and no VAPID for a subscription made without a key.
  assert.equal((await post(subscription.endpoint, '', { ttl: '60' })).status, 201);
  const [delivery] = await pushmock.waitFor({ service: 'webpush', token: subscription.id });
  assert.equal(delivery.outcome, 'accepted');
  assert.equal((await pushmock.expireWebPushSubscription(subscription.id)).state, 'expired');
  assert.equal((await post(subscription.endpoint, '', { ttl: '60' })).status, 410);
});
