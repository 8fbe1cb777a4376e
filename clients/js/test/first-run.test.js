// A first run with nothing set up: startPushMock() makes a server with a CA of its own, which
// Node's global fetch does not trust (it reads NODE_EXTRA_CA_CERTS only at process start). The
// helper's agent and fetch trust it. It always starts its own server (PUSHMOCK_BIN or PATH); CI
// runs it with no NODE_EXTRA_CA_CERTS and no PUSHMOCK_URL.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { startPushMock } from '../index.js';

const started = await startPushMock();
after(async () => { await started.stop(); });

test('the helper fetch sends an FCM message to a server this process started', async () => {
  const credentials = await started.credentials();
  const plain = await fetch(`${credentials.pushUrl}/livez`).then(() => 'trusted', (error) => String(error.cause?.code ?? error));
  assert.notEqual(plain, 'trusted', 'the global fetch trusted a CA made after the process started: this test proves nothing here');
  const token = await credentials.fcmAccessToken();
  const answer = await credentials.fetch(`${credentials.pushUrl}/v1/projects/${credentials.projectId}/messages:send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: { message: { token: credentials.fcmToken('first-run'), notification: { title: 'first run' } } },
  });
  assert.equal(answer.status, 200, await answer.text());
  assert.match((await answer.json()).name, /^projects\/pushmock-demo\/messages\//);
  const [delivery] = await started.waitFor({ service: 'fcm' }, { count: 1 });
  assert.equal(delivery.outcome, 'accepted');
});

test('the helper agent makes https.request trust the server', async () => {
  const credentials = await started.credentials();
  const status = await new Promise((resolve, reject) => {
    https.get(`${credentials.pushUrl}/livez`, { agent: credentials.agent }, (response) => { response.resume(); resolve(response.statusCode); }).on('error', reject);
  });
  assert.equal(status, 200);
});
