/** A device's recorded state for one check, as a badge with words an administrator reads at a glance. */
import type { DeviceState } from '../../api/rollout-types.js';
import { Badge, type Tone } from '../../components/status.js';

export const STATE_WORDS: Record<DeviceState, string> = {
  passing: 'passing',
  'would-fail': 'would fail (report only)',
  warned: 'warned',
  excepted: 'excepted',
  failing: 'failing',
};

const TONES: Record<DeviceState, Tone> = {
  passing: 'granted',
  'would-fail': 'mfa-needed',
  warned: 'mfa-needed',
  excepted: 'checking',
  failing: 'blocked',
};

export function StateBadge({ state }: { state: DeviceState }) {
  return <Badge tone={TONES[state]}>{STATE_WORDS[state]}</Badge>;
}
