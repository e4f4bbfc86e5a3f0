/** How an exception reads in the list and on its page: whom it covers, from which check, its state. */
import type { PostureCheckException } from '../../api/rollout-types.js';
import { Badge } from '../../components/status.js';
import { Link } from '../../lib/router.js';

export function ExceptionTarget({
  exception,
  identityNames,
}: {
  exception: PostureCheckException;
  identityNames: Map<string, string>;
}) {
  if (exception.identityId)
    return (
      <Link to={`/identities/${exception.identityId}`}>
        {identityNames.get(exception.identityId) ?? exception.identityId}
      </Link>
    );
  return (
    <span className="roles">
      {(exception.identityRoles ?? []).map((role) => (
        <code key={role}>{role}</code>
      ))}
    </span>
  );
}

export function ExceptionCheck({
  exception,
  checkNames,
}: {
  exception: PostureCheckException;
  checkNames: Map<string, string>;
}) {
  if (!exception.postureCheckId) return <strong>every check</strong>;
  return (
    <Link to={`/posture-checks/${exception.postureCheckId}`}>
      {checkNames.get(exception.postureCheckId) ?? exception.postureCheckId}
    </Link>
  );
}

export function ExceptionState({ exception }: { exception: PostureCheckException }) {
  return exception.state === 'active' ? (
    <Badge tone="granted">active</Badge>
  ) : (
    <Badge tone="blocked">expired</Badge>
  );
}
