/** The identity's own fields: type, attributes, auth policy, login, and the device it last signed in from. */
import type { Identity } from '../../../api/types.js';
import { When } from '../../../components/status.js';

export function IdentitySummary({ identity }: { identity: Identity }) {
  const env = identity.envInfo ?? {};
  const sdk = identity.sdkInfo ?? {};
  return (
    <section className="card" aria-label="Identity">
      <dl className="facts">
        <dt>Type</dt>
        <dd>
          {identity.typeId}
          {identity.isAdmin ? ', administrator' : ''}
          {identity.disabled ? ', disabled' : ''}
        </dd>
        <dt>Attributes</dt>
        <dd>
          {identity.roleAttributes.length ? identity.roleAttributes.map((a) => `#${a}`).join(' ') : 'none'}
        </dd>
        <dt>Auth policy</dt>
        <dd>{identity.authPolicy?.name ?? identity.authPolicyId}</dd>
        <dt>Password login</dt>
        <dd>{identity.authenticators.updb ? identity.authenticators.updb.username : 'none'}</dd>
        <dt>Last activity</dt>
        <dd>
          <When at={identity.lastActivityAt} />
        </dd>
        <dt>Device</dt>
        <dd>
          {[env.hostname, env.os, env.osRelease, sdk.type && `${sdk.type} ${sdk.version ?? ''}`]
            .filter(Boolean)
            .join(' · ') || 'not signed in yet'}
        </dd>
        <dt>Id</dt>
        <dd>
          <code>{identity.id}</code>
        </dd>
      </dl>
    </section>
  );
}
