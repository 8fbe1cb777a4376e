// Uses every declaration in index.d.ts as a test would, so that `tsc --noEmit --strict` checks the
// declarations against real use (CI). Never run: type errors are the failures.
import {
  PushMock, PushMockError, PushMockTimeoutError, startPushMock, findBinary, registrationToken, describe, androidV2Kind,
  type Delivery, type Filters, type FaultRule, type FaultStep, type Credentials, type StartedPushMock, type TrustedResponse, type WebPushSubscription,
} from '../../index.js';

export async function usage(): Promise<void> {
  const started: StartedPushMock = await startPushMock({ binary: findBinary(), timeout: 30000, store: 'sqlite:/tmp/p.sqlite' });
  const remote = new PushMock({ inspectionUrl: 'http://127.0.0.1:2198', token: 't' });
  const ready: boolean = await remote.ready();
  await remote.waitUntilReady(1000);
  const filters: Filters = { service: 'apns', status: 400, after: 3 };
  const cursor: number = await started.cursor();
  const found: Delivery[] = await started.waitFor(filters, { count: 1, timeout: 5000, after: cursor });
  const listed: Delivery[] = await started.deliveries({ service: 'fcm' }, { limit: 10 });
  const one: Delivery = await started.delivery(found[0].id);
  const line: string = describe(one);
  const kind: 'remote_notification' | 'background_sync' | null = androidV2Kind(one);
  const fault: FaultRule = { id: 'gone', match: { service: 'apns' }, reject: { status: 410, reason: 'Unregistered' }, count: 1 };
  await started.addFault(fault);
  const steps: FaultStep[] = [{ reject: { reason: 'ServiceUnavailable', retryAfter: 1 } }, { reject: { status: 429, reason: 'TooManyRequests' } }, { delay: { distribution: 'logNormal', medianMilliseconds: 80, sigma: 0.5 } }, { accept: true }];
  await started.addFault({ id: 'retry', match: { service: 'fcm' }, sequence: steps });
  await started.removeFaults();
  await started.setDevice('ab'.repeat(32), { state: 'unregistered' });
  await started.unregister('ab'.repeat(32), { atMilliseconds: 1 });
  const subscription: WebPushSubscription = await started.createWebPushSubscription({ service: 'apple', applicationServerKey: 'BNc' });
  const keys: { p256dh: string; auth: string } = subscription.keys;
  const expired: 'active' | 'expired' = (await started.expireWebPushSubscription(subscription.id)).state;
  void keys; void expired;
  const activity = await started.activity('token');
  const events: string[] = activity.timeline.map((entry) => entry.event + entry.deviceOutcome);
  await started.declareActivityType('Attributes', { contentState: { score: 'Int' } });
  const credentials: Credentials = await started.credentials();
  const names: Array<string | undefined> = [
    credentials.pushUrl, credentials.caPem, credentials.caPath, credentials.apnsKeyId, credentials.apnsTeamId, credentials.apnsBundleId,
    credentials.apnsKeyPath, credentials.serviceAccountPath, credentials.projectId, credentials.authorizedUserPath,
    credentials.sampleDeviceToken, credentials.sampleFid, credentials.fcmToken('x'), registrationToken('y'),
    await credentials.apnsToken(), await credentials.fcmAccessToken(), await started.pushUrl(),
  ];
  const answer: TrustedResponse = await credentials.fetch(`${credentials.pushUrl}/livez`, { method: 'POST', headers: { a: 'b' }, body: { x: 1 } });
  const status: number = answer.status;
  const text: string = await answer.text();
  const agent: object = credentials.agent;
  try {
    await started.reset();
  } catch (error) {
    if (error instanceof PushMockTimeoutError) console.log(error.arrived.length, error.matched.length);
    if (error instanceof PushMockError) console.log(error.status);
  }
  console.log(ready, listed, line, kind, events, names, status, text, agent, started.ports.push, started.log());
  await started.stop();
}
