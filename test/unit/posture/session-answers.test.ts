/** A kept answer is reused only for the same session, service, router list and router presence. */
import { describe, expect, it } from 'vitest';
import { SessionAnswers } from '../../../controller/access/sessions/session-answers.js';
import type { EdgeRouter, Service } from '../../../controller/model.js';
import type { EdgeSession } from '../../../controller/store/posture-repository.js';

const at = new Date('2026-01-01T00:00:00Z');
const session = (tokenHash = 't1'): EdgeSession => ({
  id: 'e1',
  tokenHash,
  identityId: 'i',
  apiSessionId: 'a',
  serviceId: 's',
  type: 'Dial',
  createdAt: at,
  updatedAt: at,
});

describe('SessionAnswers', () => {
  it('renders again whenever one input is a different object or the presence changed', () => {
    const answers = new SessionAnswers();
    const service = { id: 's', name: 'one' } as Service;
    const routers = [{ id: 'r1' }] as EdgeRouter[];
    let renders = 0;
    const answer = (s: EdgeSession, inputs: Parameters<SessionAnswers['answer']>[1]) =>
      answers.answer(s, inputs, () => `answer ${++renders}`);

    expect(answer(session(), { service, routers, presence: '1' })).toBe('answer 1');
    expect(answer(session(), { service, routers, presence: '1' }), 'all the same').toBe('answer 1');
    expect(answer(session(), { service, routers, presence: '0' }), 'router offline').toBe('answer 2');
    expect(answer(session(), { service: { ...service }, routers, presence: '0' }), 'service').toBe(
      'answer 3',
    );
    expect(answer(session(), { service, routers: [...routers], presence: '0' }), 'routers').toBe('answer 4');
    expect(answer(session('t2'), { service, routers, presence: '0' }), 'another token, same id').toBe(
      'answer 5',
    );
    expect(answer(session('t2'), { service: undefined, routers, presence: '0' })).toBe('answer 6');
  });
});
