/**
 * The soak's simulated devices and what each request they send must get. Every device is bound to one
 * controller instance ("home") and sends one request at a time, as an agent does:
 *
 * - passing: reports facts that pass the policy (a new fact every other report, the same one in between, so
 *   both the changing and the repeating report paths run) and asks for a session, which must be granted;
 * - denied: reports a MAC list without the required address and asks for a session, which must be refused;
 * - flapping: reports passing at home and asks for a session there (granted), then reports failing at home
 *   and asks for a session at the OTHER instance, which must be refused: the change acknowledged by one
 *   instance must be seen by the other before its next decision.
 *
 * Every report carries a MAC address encoding the device and a sequence number (02:dd:ss:ss:ss:ss), so the
 * database can be read for the last report a device had acknowledged: it must be there, or a later one.
 */
import { Api, CLIENT } from './api-setup.js';

export type DeviceKind = 'passing' | 'denied' | 'flapping';
export type InstanceName = 'A' | 'B';

/** The MAC the soak's MAC check requires. */
export const GOOD_MAC = 'aa:bb:cc:00:00:01';

export interface Device {
  index: number;
  kind: DeviceKind;
  identityId: string;
  token: string;
  home: InstanceName;
  step: number;
  /** sequence number of the last report sent, and of the last one answered 2xx */
  sent: number;
  acked: number;
  /** whether the last acknowledged report passes the policy; undefined after a report whose fate is unknown */
  passing: boolean | undefined;
  busy: boolean;
}

export interface Outcome {
  instance: InstanceName;
  /** ms since the soak began, when the answer (or the failure) came */
  at: number;
  /** how long the request took, in ms */
  ms: number;
  /** no answer (connection refused or reset, timeout), or an answer the request must not get */
  error?: string;
  /** a session granted that the policy forbids */
  violation?: string;
  /** a session refused that the policy allows, right after the report that allows it (informational) */
  wronglyRefused?: boolean;
  report?: boolean;
}

/** `02:dd:ss:ss:ss:ss`: device index and report sequence number. */
export function sequenceMac(device: number, seq: number): string {
  const hex = (n: number) => n.toString(16).padStart(2, '0');
  return [2, device & 0xff, (seq >>> 24) & 0xff, (seq >>> 16) & 0xff, (seq >>> 8) & 0xff, seq & 0xff]
    .map(hex)
    .join(':');
}

/**
 * The sequence number of the device's MAC in a stored MAC fact (JSON text), or undefined if there is none.
 * The controller stores addresses as bare hex (no separators), so both spellings are read.
 */
export function storedSequence(device: number, factText: string): number | undefined {
  const strings: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (v && typeof v === 'object') Object.values(v).forEach(collect);
  };
  try {
    collect(JSON.parse(factText));
  } catch {
    return undefined;
  }
  const prefix = `02${(device & 0xff).toString(16).padStart(2, '0')}`;
  for (const s of strings) {
    const hex = s.toLowerCase().replace(/[^0-9a-f]/g, '');
    if (hex.length === 12 && hex.startsWith(prefix)) return parseInt(hex.slice(4), 16);
  }
  return undefined;
}

export interface SoakCatalogue {
  osCheckId: string;
  macCheckId: string;
  serviceId: string;
}

export class DeviceDriver {
  readonly started = performance.now();

  constructor(
    private readonly urls: () => Record<InstanceName, string>,
    private readonly catalogue: SoakCatalogue,
    private readonly record: (outcome: Outcome) => void,
  ) {}

  private report(device: Device, passing: boolean, fresh: boolean): { body: string } {
    if (fresh) device.sent++;
    const macs = [sequenceMac(device.index, device.sent)];
    if (passing) macs.unshift(GOOD_MAC);
    const c = this.catalogue;
    return {
      body: JSON.stringify([
        { id: c.osCheckId, typeId: 'OS', type: 'Linux', version: '6.8.0', build: '' },
        { id: c.macCheckId, typeId: 'MAC', macAddresses: macs },
      ]),
    };
  }

  private async send(
    device: Device,
    instance: InstanceName,
    path: string,
    body: string,
  ): Promise<({ status: number } | { error: string }) & { ms: number }> {
    const sent = performance.now();
    try {
      const res = await fetch(this.urls()[instance] + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'zt-session': device.token },
        body,
        signal: AbortSignal.timeout(30_000),
      });
      await res.arrayBuffer();
      return { status: res.status, ms: performance.now() - sent };
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      return { error: cause ?? (err as Error).name, ms: performance.now() - sent };
    }
  }

  private async postReport(device: Device, passing: boolean, fresh: boolean): Promise<void> {
    const { body } = this.report(device, passing, fresh);
    const seq = device.sent;
    const answer = await this.send(device, device.home, `${CLIENT}/posture-response-bulk`, body);
    const at = performance.now() - this.started;
    const { ms } = answer;
    if ('status' in answer && answer.status === 201) {
      device.acked = seq;
      device.passing = passing;
      this.record({ instance: device.home, at, ms, report: true });
      return;
    }
    device.passing = undefined;
    this.record({
      instance: device.home,
      at,
      ms,
      report: true,
      error: 'error' in answer ? answer.error : `report answered ${answer.status}`,
    });
  }

  /** A session request at `instance`; `expect` is what the last acknowledged report entitles the device to. */
  private async postSession(
    device: Device,
    instance: InstanceName,
    expect: boolean | undefined,
  ): Promise<void> {
    const body = JSON.stringify({ serviceId: this.catalogue.serviceId, type: 'Dial' });
    const answer = await this.send(device, instance, `${CLIENT}/sessions`, body);
    const at = performance.now() - this.started;
    const { ms } = answer;
    if ('error' in answer) return this.record({ instance, at, ms, error: answer.error });
    if (answer.status === 201) {
      if (expect === false)
        return this.record({
          instance,
          at,
          ms,
          violation: `${device.kind} device ${device.index} granted a session at ${instance} after a failing report`,
        });
      return this.record({ instance, at, ms });
    }
    if (answer.status === 409) return this.record({ instance, at, ms, wronglyRefused: expect === true });
    this.record({ instance, at, ms, error: `session answered ${answer.status}` });
  }

  /** The device's next request, by kind and step. */
  async next(device: Device): Promise<void> {
    device.busy = true;
    const other: InstanceName = device.home === 'A' ? 'B' : 'A';
    const step = device.step++;
    try {
      switch (device.kind) {
        case 'passing':
          // new report, session, same report again, session
          if (step % 2 === 0) await this.postReport(device, true, step % 4 === 0 || device.sent === 0);
          else await this.postSession(device, device.home, device.passing === true ? true : undefined);
          break;
        case 'denied':
          if (step % 2 === 0) await this.postReport(device, false, true);
          else await this.postSession(device, device.home, device.passing === false ? false : undefined);
          break;
        case 'flapping':
          switch (step % 4) {
            case 0:
              await this.postReport(device, true, true);
              break;
            case 1:
              await this.postSession(device, device.home, device.passing);
              break;
            case 2:
              await this.postReport(device, false, true);
              break;
            default:
              await this.postSession(device, other, device.passing);
          }
      }
    } finally {
      device.busy = false;
    }
  }
}

/** A device's identity: created, signed in at `home` (password login, as an agent), its token kept. */
export async function signIn(url: string, name: string): Promise<{ token: string }> {
  const api = new Api(url);
  const res = await api.request('POST', `${CLIENT}/authenticate?method=password`, {
    username: name,
    password: 'soak-password',
    sdkInfo: { type: 'postern-soak', version: '0.1.0' },
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { token: res.headers.get('zt-session')! };
}
