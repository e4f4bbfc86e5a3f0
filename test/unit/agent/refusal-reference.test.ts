/**
 * Every surface of the agent that shows a refusal names the controller's reference (`ref 7K2Q-PX`): the
 * service view (only on a refusal, only of the reference's shape), the CLI's table, status lines and error
 * line, the tunnel's event line and 403 page, the desktop's notification and tray menu.
 */
import { describe, expect, it } from 'vitest';
import { describeServiceAccess } from '../../../src/api/service-access.js';
import { describeNotice } from '../../../src/api/prompts.js';
import { referenceOfCause } from '../../../src/api/refusal-reference.js';
import { servicesTable, statusLines } from '../../../src/agent/cli/format.js';
import { controllerFailure } from '../../../src/agent/cli/cli-errors.js';
import { ControllerError } from '../../../src/controller-client/controller-error.js';
import { describeTunnelEvent } from '../../../src/agent/tunnel/tunnel-events.js';
import { refusalResponse } from '../../../src/agent/tunnel/refusal-page.js';
import { TunnelManager } from '../../../src/agent/tunnel/tunnel-manager.js';
import { DesktopPrompts, type PromptSurface } from '../../../desktop/agent/desktop-prompts.js';
import { wireTunnelNotices } from '../../../desktop/agent/tunnel-view.js';
import { serviceMenuLabel } from '../../../desktop/agent/tray-state.js';
import { query, service } from './fakes.js';

const REF = '7K2Q-PX';
const blockedWiki = () => ({
  ...service('wiki', [query('DOMAIN', { reason: { code: 'DOMAIN_NOT_ALLOWED', domain: 'home' } as never })]),
  refusalReference: REF,
});

describe('the reference on a refused service', () => {
  it('is carried by a blocked or code-needing service, never by a reachable, waiting or malformed one', () => {
    expect(describeServiceAccess(blockedWiki())).toMatchObject({ access: 'blocked', reference: REF });
    const mfa = { ...service('git', [query('MFA')]), refusalReference: REF };
    expect(describeServiceAccess(mfa)).toMatchObject({ access: 'mfa-needed', reference: REF });
    const granted = { ...service('crm', [query('OS', { isPassing: true })], true), refusalReference: REF };
    expect(describeServiceAccess(granted).reference).toBeNull();
    expect(describeServiceAccess(blockedWiki(), { reported: false })).toMatchObject({
      access: 'checking',
      reference: null,
    });
    const odd = { ...blockedWiki(), refusalReference: '<b>not a reference</b>' };
    expect(describeServiceAccess(odd).reference).toBeNull();
    expect(describeServiceAccess(service('wiki', [query('DOMAIN')])).reference).toBeNull();
  });

  it('is in the CLI table under what to fix, and in the status lines', () => {
    const view = describeServiceAccess(blockedWiki());
    const table = servicesTable([view]).split('\n');
    expect(table.at(-1)?.trim()).toBe(`ref ${REF} (quote it to your administrator)`);
    const status = statusLines(
      { state: 'active', controllerUrl: 'https://c', reachable: true, mfa: undefined },
      [view],
    );
    expect(status.split('\n')).toContain(`  wiki: blocked (ref ${REF})`);
  });
});

describe('the reference on a refused connection', () => {
  it('is read from error.cause and worded in the CLI error line', () => {
    const error = new ControllerError({
      status: 409,
      code: 'INVALID_POSTURE',
      message: 'Posture response data is missing or wrong',
      apiCause: { message: 'Failed to pass posture checks', data: {}, reference: REF },
    });
    expect(referenceOfCause(error.apiCause)).toBe(REF);
    expect(controllerFailure(error).message).toBe(
      `access refused: Posture response data is missing or wrong (ref ${REF})`,
    );
    expect(referenceOfCause({ reference: 42 })).toBeUndefined();
    expect(referenceOfCause(null)).toBeUndefined();
  });

  it('ends the tunnel line and is on the 403 page', () => {
    expect(
      describeTunnelEvent({ type: 'refused', service: 'wiki', reasons: ['Join corp'], reference: REF }),
    ).toBe(`tunnel wiki: refused: Join corp (ref ${REF})`);
    expect(describeTunnelEvent({ type: 'refused', service: 'wiki', reasons: ['Join corp'] })).toBe(
      'tunnel wiki: refused: Join corp',
    );
    const page = refusalResponse('wiki', [{ fix: 'Join corp' }], REF).toString('utf8');
    expect(page).toContain(`Quote <strong>ref ${REF}</strong>`);
    expect(refusalResponse('wiki', [{ fix: 'Join corp' }]).toString('utf8')).not.toContain('Quote');
  });

  it('is in the desktop notification body and the tray menu', () => {
    const notes: { title: string; body: string }[] = [];
    const surface: PromptSurface = {
      openPromptWindow: () => undefined,
      closePromptWindow: () => undefined,
      notify: (title, body) => void notes.push({ title, body }),
      mainWindowVisible: () => false,
      showMainWindow: () => undefined,
    };
    const tunnel = new TunnelManager({
      createSession: () => Promise.reject(new Error('unused')),
      reasonsFor: async () => [],
      socksPort: null,
    });
    wireTunnelNotices(tunnel, new DesktopPrompts(surface), () => undefined);
    tunnel.events.emit('event', {
      type: 'refused',
      service: 'wiki',
      reasons: ['Join corp.'],
      reference: REF,
    });
    expect(notes).toEqual([{ title: 'wiki is blocked', body: `Join corp.\nref ${REF}` }]);
    expect(
      describeNotice({ type: 'service-refused', service: 'wiki', reasons: ['Join corp.'], reference: REF }),
    ).toBe(`wiki is blocked: Join corp. (ref ${REF})`);
    expect(serviceMenuLabel({ name: 'wiki', access: 'blocked', reference: REF })).toBe(
      `wiki: blocked (ref ${REF})`,
    );
    expect(serviceMenuLabel({ name: 'git', access: 'mfa-needed', reference: REF })).toBe(
      `git: needs your code (ref ${REF})`,
    );
    expect(serviceMenuLabel({ name: 'wiki', access: 'blocked' })).toBe('wiki: blocked');
  });
});
