/**
 * An identity's posture data as `GET /identities/<id>/posture-data` shows it (OpenZiti's
 * `postureData`). Slots never reported show `lastUpdatedAt: null` and leave their value out, as OpenZiti does.
 * Reported data never times out (OpenZiti stopped expiring it in 2021), so `timedOut` is always false.
 */
import { iso } from '../../http/envelope.js';
import type { ApiSessionPostureData, PostureSnapshot } from '../../posture-model.js';

const slot = (s: { postureCheckId: string; lastUpdatedAt: Date } | null) => ({
  postureCheckId: s?.postureCheckId ?? '',
  lastUpdatedAt: iso(s?.lastUpdatedAt),
  timedOut: false,
});

/** Whether TOTP was passed at or after the last wake/unlock (or none happened): "passed on wake/unlock". */
const passedSince = (passedAt: Date | null, eventAt: Date | null) =>
  passedAt !== null && (eventAt === null || eventAt.getTime() <= passedAt.getTime());

function apiSessionToWire(s: ApiSessionPostureData) {
  return {
    mfa: {
      apiSessionId: s.apiSessionId,
      passedAt: iso(s.mfaPassedAt),
      passedMfa: s.mfaPassedAt !== null,
      passedOnWake: passedSince(s.mfaPassedAt, s.wokenAt),
      passedOnUnlock: passedSince(s.mfaPassedAt, s.unlockedAt),
    },
    // As OpenZiti emits it: only once a wake or unlock happened, then with both times (null for the other).
    ...(s.wokenAt || s.unlockedAt
      ? { endpointState: { wokenAt: iso(s.wokenAt), unlockedAt: iso(s.unlockedAt) } }
      : {}),
    sdkInfo: s.sdkInfo,
  };
}

export function postureDataToWire(data: PostureSnapshot) {
  const { os, mac, domain } = data;
  return {
    // The OS type is shown lower case (Postern's documented form), whatever spelling the device reported.
    os: {
      ...slot(os),
      ...(os ? { type: os.type.toLowerCase(), version: os.version } : {}),
      build: os?.build ?? null,
    },
    mac: { ...slot(mac), addresses: mac ? mac.addresses : null },
    domain: { ...slot(domain), ...(domain ? { domain: domain.domain } : {}) },
    processes: data.processes.map((p) => ({
      ...slot(p),
      path: p.path,
      isRunning: p.isRunning,
      binaryHash: p.hash,
      signerFingerprints: p.signerFingerprints,
    })),
    // Postern: the described types' facts (DISK_ENCRYPTION, FIREWALL, SCREEN_LOCK, ...) by type id.
    facts: Object.fromEntries(
      Object.entries(data.facts ?? {}).map(([typeId, f]) => [typeId, { ...slot(f), ...f.value }]),
    ),
    apiSessionPostureData: Object.fromEntries(
      Object.entries(data.apiSessions).map(([id, s]) => [id, apiSessionToWire(s)]),
    ),
  };
}
