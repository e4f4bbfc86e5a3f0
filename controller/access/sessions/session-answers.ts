/**
 * The answer to `POST /sessions` for a session that already exists, kept serialized: an agent asks for the same
 * session on every new connection, and the answer only changes when the session, its service or the routers
 * it may use change, or a router goes on- or offline. Each is compared by identity (the caching store hands out
 * the same service and router objects until one changes), the routers' presence by value; anything different
 * and the answer is rendered again. Where a store hands out new objects on every read, nothing is reused.
 */
import type { EdgeRouter, Service } from '../../model.js';
import type { EdgeSession } from '../../store/posture-repository.js';
import { withFields } from '../../../src/common/with-fields.js';

/** Answers kept, at most (then they are rendered afresh). */
const KEPT_ANSWERS = 10_000;

/** What an answer is rendered from, besides the session. */
export interface AnswerInputs {
  service: Service | undefined;
  routers: readonly EdgeRouter[];
  /** each router's presence, in order ('1' online, '0' not) */
  presence: string;
}

interface Kept extends AnswerInputs {
  tokenHash: string;
  text: string;
}

export class SessionAnswers {
  private readonly kept = new Map<string, Kept>();

  /** The serialized answer for `session`, rendered by `render` only when no kept one matches its inputs. */
  answer(session: EdgeSession, inputs: AnswerInputs, render: () => string): string {
    const known = this.kept.get(session.id);
    if (
      known &&
      known.tokenHash === session.tokenHash &&
      known.service === inputs.service &&
      known.routers === inputs.routers &&
      known.presence === inputs.presence
    )
      return known.text;
    const text = render();
    if (this.kept.size >= KEPT_ANSWERS) this.kept.clear();
    this.kept.set(session.id, withFields(inputs, { tokenHash: session.tokenHash, text }));
    return text;
  }
}
