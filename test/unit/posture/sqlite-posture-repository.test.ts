/**
 * The SQLite posture repository: what it keeps, what replaces what, and what it removes. Its own behaviour,
 * so it is driven synchronously (`store.sync`), without the store's asynchronous face.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Fixture } from './fixture.js';
import type { FailedServiceRequest } from '../../../controller/store/posture-repository.js';

const at = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, s));

describe('SqlitePostureRepository', () => {
  let f: Fixture;
  beforeEach(() => {
    f = new Fixture();
  });
  afterEach(() => f.dispose());

  it('keeps the latest report per slot and per process path, and API-session data apart', () => {
    const { data } = f.store.sync.posture;
    apiSessionRow('s1');
    data.setOs('i1', {
      postureCheckId: 'c1',
      lastUpdatedAt: at(1),
      type: 'Linux',
      version: '5.4.0',
      build: null,
    });
    data.setOs('i1', {
      postureCheckId: 'c2',
      lastUpdatedAt: at(2),
      type: 'Linux',
      version: '6.1.0',
      build: '7',
    });
    data.setProcess('i1', {
      postureCheckId: 'p',
      lastUpdatedAt: at(1),
      path: '/a',
      isRunning: true,
      hash: '',
      signerFingerprints: [],
    });
    data.setProcess('i1', {
      postureCheckId: 'p',
      lastUpdatedAt: at(3),
      path: '/a',
      isRunning: false,
      hash: 'x',
      signerFingerprints: ['s'],
    });
    data.setProcess('i1', {
      postureCheckId: 'q',
      lastUpdatedAt: at(2),
      path: '/b',
      isRunning: true,
      hash: '',
      signerFingerprints: [],
    });
    data.updateApiSession('s1', 'i1', { mfaPassedAt: at(5) });
    data.updateApiSession('s1', 'i1', { wokenAt: at(6) });
    data.setDomain('i2', { postureCheckId: 'd', lastUpdatedAt: at(1), domain: 'corp' });

    const loaded = data.load('i1');
    expect(loaded.os).toEqual({
      postureCheckId: 'c2',
      lastUpdatedAt: at(2),
      type: 'Linux',
      version: '6.1.0',
      build: '7',
    });
    expect(loaded.processes.map((p) => [p.path, p.isRunning])).toEqual([
      ['/a', false],
      ['/b', true],
    ]);
    expect(loaded.apiSessions.s1).toEqual({
      apiSessionId: 's1',
      mfaPassedAt: at(5),
      wokenAt: at(6),
      unlockedAt: null,
      sdkInfo: null,
    });
    expect(loaded.domain).toBeNull();

    data.clearMfa('i1');
    expect(data.load('i1').apiSessions.s1?.mfaPassedAt).toBeNull();
    data.deleteApiSession('s1');
    expect(data.load('i1').apiSessions).toEqual({});
    data.deleteIdentity('i1');
    expect(data.load('i1')).toMatchObject({ os: null, processes: [] });
    expect(data.load('i2').domain?.domain).toBe('corp');
  });

  it('trims failed requests to the newest ones, oldest first', () => {
    const record = (n: number): FailedServiceRequest => ({
      apiSessionId: 's',
      serviceId: `svc-${n}`,
      serviceName: 'svc',
      sessionType: 'Dial',
      when: at(n),
      policyFailures: [],
    });
    const { failures } = f.store.sync.posture;
    for (let n = 0; n < 60; n++) failures.add('i1', record(n), 50);
    failures.add('i2', record(99), 50);
    const kept = failures.list('i1');
    expect(kept.map((r) => r.serviceId)).toEqual(Array.from({ length: 50 }, (_, i) => `svc-${i + 10}`));
    expect(failures.list('i2')).toHaveLength(1);
  });

  it('writes no row for an API session that does not exist, and removes its rows with it', () => {
    const { data, sessions } = f.store.sync.posture;
    const now = at(0);
    // Only `live` is an API session that exists; `gone` ended (a late event for it, say).
    apiSessionRow('live');
    data.updateApiSession('gone', 'i1', {});
    data.updateApiSession('live', 'i1', {});
    const edge = (id: string, apiSessionId: string) => ({
      id,
      tokenHash: `h-${id}`,
      identityId: 'i1',
      apiSessionId,
      serviceId: 's',
      type: 'Dial' as const,
      createdAt: now,
      updatedAt: now,
    });
    expect(() => sessions.create(edge('e1', 'gone'))).toThrow(/FOREIGN KEY constraint failed/);
    sessions.create(edge('e2', 'live'));
    expect(sessions.deleteOrphans()).toBe(0);
    expect(data.deleteOrphans()).toBe(0);
    expect(sessions.listByIdentity('i1').map((s) => s.id)).toEqual(['e2']);
    expect(Object.keys(data.load('i1').apiSessions)).toEqual(['live']);

    // Ending the API session ends its edge session and its posture row in the same statement.
    f.store.sync.apiSessions.delete('live');
    data.clearCache();
    expect(sessions.listByIdentity('i1')).toEqual([]);
    expect(data.load('i1').apiSessions).toEqual({});
  });

  /** An API session row for identity `i1`, as a sign-in makes. */
  function apiSessionRow(id: string): void {
    const now = at(0);
    f.store.sync.apiSessions.create(
      {
        id,
        identityId: 'i1',
        authenticatorId: 'a',
        ipAddress: '127.0.0.1',
        configTypes: [],
        envInfo: {},
        sdkInfo: {},
        isMfaRequired: false,
        isMfaComplete: false,
        createdAt: now,
        updatedAt: now,
        lastActivityAt: now,
      },
      `hash-${id}`,
    );
  }
});
