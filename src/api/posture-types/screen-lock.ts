/** SCREEN_LOCK: the screen locks after at most `maxIdleMinutes` of idle. */
import { Type } from '@sinclair/typebox';
import { definePostureType } from './descriptor.js';
import { DESKTOP_OS } from './os-types.js';
import { RESPONSE_TEXT_LIMITS } from './text-limits.js';

export interface ScreenLockFact {
  lockEnabled: boolean | null;
  /** minutes of idle before the screen locks; null when unknown or never */
  idleMinutes: number | null;
  unknownReason?: string;
}

export const screenLock = definePostureType({
  id: 'SCREEN_LOCK',
  displayName: 'Screen lock',
  apiName: 'Screen Lock Check',
  openZiti: false,
  operatingSystems: DESKTOP_OS,
  waitingFor: 'its screen lock settings',
  userNoun: 'screen lock',
  description: 'the screen locks after at most maxIdleMinutes minutes of idle',
  optionFields: [
    {
      name: 'maxIdleMinutes',
      schema: Type.Integer({ minimum: 1, maximum: 1440, default: 10 }),
      label: 'Lock after at most (minutes)',
      help: 'The longest idle time before the screen must lock.',
      required: true,
    },
  ],
  fact: {
    schema: Type.Object({
      lockEnabled: Type.Union([Type.Boolean(), Type.Null()]),
      idleMinutes: Type.Union([Type.Number({ minimum: 0, maximum: 1_000_000 }), Type.Null()]),
      unknownReason: Type.Optional(Type.String({ maxLength: RESPONSE_TEXT_LIMITS.unknownReason })),
    }),
    collectedOn: ['linux', 'win32', 'darwin'],
  },
  reasons: {
    SCREEN_LOCK_OFF: 'The screen never locks by itself: turn on the automatic screen lock.',
    SCREEN_LOCK_TOO_LATE: 'The screen locks too late: set it to lock after fewer idle minutes.',
    SCREEN_LOCK_UNKNOWN:
      'Postern could not read the screen lock settings: set the screen to lock by itself, then try again.',
  },
});
