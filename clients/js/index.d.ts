import type { Agent } from 'node:https';

/** A recorded request: accepted, dropped by the device, or rejected. */
export interface Delivery {
  id: number;
  service: 'apns' | 'fcm' | 'oauth' | 'broadcast' | 'iid' | 'webpush';
  outcome: 'accepted' | 'dropped' | 'rejected';
  status: number;
  reason: string | null;
  explanation: string | null;
  deviceToken: string | null;
  topic: string | null;
  pushType: string | null;
  payload: unknown;
  issuedActivityToken: string | null;
  diagnostics: string[];
  [field: string]: unknown;
}

export type Filters = Record<string, string | number | boolean>;

/** A minted Web Push subscription: `endpoint`, `expirationTime` and `keys` as PushSubscription.toJSON() gives them. */
export interface WebPushSubscription {
  id: string;
  service: 'apple' | 'mozilla' | 'google';
  endpoint: string;
  expirationTime: number | null;
  keys: { p256dh: string; auth: string };
  state: 'active' | 'expired';
  applicationServerKey?: string | null;
  createdAt: number;
}

/** A drawn delay, in milliseconds. */
export type DelayDistribution =
  | { distribution: 'uniform'; minMilliseconds: number; maxMilliseconds: number }
  | { distribution: 'normal'; meanMilliseconds: number; standardDeviationMilliseconds: number }
  | { distribution: 'logNormal'; medianMilliseconds: number; sigma: number };

export interface FaultRule {
  id?: string;
  match?: { service?: string; token?: string; topic?: string; project?: string; path?: string };
  /** `upstream`: change the relay upstream's answer (passthrough mode) instead of PushMock's own: a delay, goAway or resetStream, not reject. */
  target?: 'upstream';
  reject?: { status: number; reason: string; retryAfter?: number };
  delayMilliseconds?: number;
  /** A delay drawn for each request from the server's seeded generator (faultSeed). */
  delay?: DelayDistribution;
  goAway?: string;
  resetStream?: boolean;
  count?: number;
  probability?: number;
  /** Steps used in turn, one per matching request (instead of one action), for a retry path. */
  sequence?: FaultStep[];
}

/** One step of a fault sequence: exactly one action, or `accept: true` (answered as usual). */
export interface FaultStep {
  reject?: { status?: number; reason: string; retryAfter?: number };
  delayMilliseconds?: number;
  /** A delay drawn for each request from the server's seeded generator (faultSeed). */
  delay?: DelayDistribution;
  goAway?: string;
  resetStream?: boolean;
  accept?: boolean;
}

export interface Credentials {
  pushUrl: string;
  caPem?: string;
  caPath?: string;
  apns?: { keyId: string; teamId: string; p8: string; bundleId: string };
  apnsKeyPath?: string;
  serviceAccount?: Record<string, string>;
  serviceAccountPath?: string;
  projectId?: string;
  apnsKeyId?: string;
  apnsTeamId?: string;
  apnsBundleId?: string;
  authorizedUserPath?: string;
  sampleDeviceToken: string;
  sampleFid: string;
  samples: { apnsDeviceToken: string; fcmRegistrationToken: string; fid: string };
  /** A provider token signed with the development APNs key. */
  apnsToken(): Promise<string>;
  /** An access token for the development service account. */
  fcmAccessToken(): Promise<string>;
  /** A real-shaped FCM registration token; `name` makes distinct ones. */
  fcmToken(name?: string): string;
  /** An https.Agent that trusts the server's CA (for https.request, axios' httpsAgent…). */
  agent: Agent;
  /** A small fetch over node:https that trusts the server's CA (Node's global fetch trusts only CAs given at start). */
  fetch(url: string, init?: TrustedFetchInit): Promise<TrustedResponse>;
}

export interface TrustedFetchInit {
  method?: string;
  headers?: Record<string, string>;
  /** A string or Buffer as it is; URLSearchParams as a form; anything else as JSON. */
  body?: string | Buffer | URLSearchParams | unknown;
}

export interface TrustedResponse {
  status: number;
  ok: boolean;
  headers: Record<string, string | string[] | undefined>;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

export class PushMockError extends Error {
  status: number;
  body: unknown;
}

export class PushMockTimeoutError extends Error {
  count: number;
  timeout: number;
  filters: Filters;
  matched: Delivery[];
  arrived: Delivery[];
}

export class PushMock {
  constructor(options?: { inspectionUrl?: string; token?: string });
  inspectionUrl: string;
  ready(): Promise<boolean>;
  waitUntilReady(timeout?: number): Promise<void>;
  deliveries(filters?: Filters, options?: { limit?: number }): Promise<Delivery[]>;
  cursor(): Promise<number>;
  waitFor(filters?: Filters, options?: { count?: number; timeout?: number; after?: number }): Promise<Delivery[]>;
  delivery(id: number): Promise<Delivery>;
  reset(): Promise<void>;
  addFault(rule: FaultRule): Promise<unknown>;
  removeFaults(): Promise<void>;
  setDevice(token: string, record: Record<string, unknown>): Promise<unknown>;
  unregister(token: string, options?: { atMilliseconds?: number }): Promise<unknown>;
  /** Mints a Web Push subscription; `endpoint`, `expirationTime` and `keys` are what PushSubscription.toJSON() gives. */
  createWebPushSubscription(options?: { service?: 'apple' | 'mozilla' | 'google'; applicationServerKey?: string }): Promise<WebPushSubscription>;
  /** Pushes to the subscription get the service's 410 from now on. */
  expireWebPushSubscription(id: string): Promise<WebPushSubscription>;
  activity(token: string): Promise<{ state: string; contentState: unknown; timeline: Array<{ event: string; deviceOutcome: string; reason: string | null }> } & Record<string, unknown>>;
  declareActivityType(name: string, declaration: Record<string, unknown>): Promise<unknown>;
  credentials(): Promise<Credentials>;
  pushUrl(): Promise<string>;
}

export interface StartedPushMock extends PushMock {
  ports: { push: number; inspection: number; cleartext: number | null; proxy: number | null; metadata: number | null };
  log(): string;
  stop(): Promise<void>;
}

export function startPushMock(options?: { binary?: string; timeout?: number; [flag: string]: unknown }): Promise<StartedPushMock>;
export function findBinary(binary?: string): string;
export function registrationToken(name: string): string;
export function describe(delivery: Delivery): string;
/** For an FCM message sent with android_v2 (AndroidConfigV2): which member of its union it sets; else null. */
export function androidV2Kind(delivery: Delivery): 'remote_notification' | 'background_sync' | null;
