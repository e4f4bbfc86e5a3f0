/**
 * Builds the agent's components and hands each the others it needs at construction. The Agent facade
 * (agent.ts) owns them afterwards and adds the reactions between them.
 */
import type { TunnelOptions } from './tunnel/tunnel-manager.js';
import type { MfaState } from '../api/mfa.js';
import { ControllerClient } from '../controller-client/controller-client.js';
import type { ControllerTrust } from '../controller-client/controller-trust.js';
import { EdgeApi } from './client/edge-api.js';
import type { RetryOptions } from '../controller-client/retry-policy.js';
import { createCollector } from './collectors/create-collector.js';
import { FactCollector } from './collectors/facts/fact-collector.js';
import type { PostureCollector } from './collectors/posture-collector.js';
import type { CredentialStore } from './credentials/credential-store.js';
import { MfaClient } from './mfa/mfa-client.js';
import { PostureReporter } from './posture/posture-reporter.js';
import { ServiceDirectory } from './posture/service-directory.js';
import { PowerReactor } from './power/power-reactor.js';
import { PowerEventEmitter, type PowerEvents } from './power/power-events.js';
import { MfaPrompter } from './prompts/mfa-prompter.js';
import { MfaTimeoutWatch } from './prompts/mfa-timeout-watch.js';
import type { PromptPort } from './prompts/prompt-port.js';
import type { ClientCertificate } from './enrollment/device-identity.js';
import { CredentialVault } from './session/credential-vault.js';
import { SessionManager } from './session/session-manager.js';
import { systemClock, type Clock } from '../common/clock.js';
import { silentLogger, type AgentLogger } from '../common/logger.js';

export interface AgentOptions {
  controllerUrl: string;
  credentials: CredentialStore;
  prompt: PromptPort;
  /** Defaults to an emitter nobody fires (events can still be simulated). */
  power?: PowerEvents;
  collector?: PostureCollector;
  /** the descriptors' facts (disk encryption, firewall, screen lock); tests inject recorded tools */
  facts?: FactCollector;
  /** PEM CA bundle to trust for the controller's TLS certificate. */
  ca?: string | Buffer;
  /** the SHA-256 fingerprint of a controller's self-signed certificate, pinned instead of a CA check */
  controllerFingerprint?: string;
  /**
   * This device's enrolled certificate and key (enrollment/device-identity.ts): presented on every TLS
   * connection to the controller, and what the agent signs in with when no password login is stored.
   */
  clientCertificate?: ClientCertificate;
  /** `--insecure`: allow plain http:// to a controller that is not on loopback */
  allowPlainHttp?: boolean;
  reportIntervalMs?: number;
  /** How long before an MFA timeout to prompt (default 60 s). */
  timeoutWarningMs?: number;
  retry?: Partial<RetryOptions>;
  clock?: Clock;
  logger?: AgentLogger;
  platform?: NodeJS.Platform;
  /**
   * The tunnel (the CLI's `run` and the desktop app): proxy mode (local listeners and SOCKS5), or intercept
   * mode when `intercept` is given.
   */
  tunnel?: Pick<TunnelOptions, 'portsFile' | 'socksPort' | 'intercept'>;
}

export interface AgentParts {
  client: ControllerClient;
  api: EdgeApi;
  mfa: MfaClient;
  prompter: MfaPrompter;
  sessions: SessionManager;
  directory: ServiceDirectory;
  reporter: PostureReporter;
  power: PowerReactor;
  timeoutWatch: MfaTimeoutWatch;
}

/** How every connection to the controller is trusted, and what it presents. */
export function controllerTrustOf(options: AgentOptions): ControllerTrust {
  return {
    ca: options.ca,
    fingerprint: options.controllerFingerprint,
    clientCertificate: options.clientCertificate,
  };
}

/** `mfaState` is read lazily: the facade learns it after sign-in. */
export function createAgentParts(options: AgentOptions, mfaState: () => MfaState | undefined): AgentParts {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const platform = options.platform ?? process.platform;
  const client = new ControllerClient({
    baseUrl: options.controllerUrl,
    trust: controllerTrustOf(options),
    allowPlainHttp: options.allowPlainHttp,
    retry: options.retry,
    clock,
    logger,
  });
  const api = new EdgeApi(client);
  const mfa = new MfaClient(client);
  const prompter = new MfaPrompter({
    port: options.prompt,
    submit: (code) => mfa.submit(code),
    clock,
    logger,
  });
  const sessions = new SessionManager({
    api,
    vault: new CredentialVault(options.credentials),
    controllerUrl: client.baseUrl,
    requestTotp: () => prompter.request({ reason: 'login' }),
    certificate: options.clientCertificate !== undefined,
    logger,
  });
  const directory = new ServiceDirectory(api, clock);
  const reporter = new PostureReporter({
    api,
    collector: options.collector ?? createCollector({ platform }),
    facts: options.facts ?? new FactCollector({ platform }),
    directory,
    session: () => sessions.status(),
    clock,
    intervalMs: options.reportIntervalMs,
    platform,
    logger,
  });
  const active = () => sessions.status().state === 'active';
  const power = new PowerReactor({
    power: options.power ?? new PowerEventEmitter(),
    api,
    directory,
    prompter,
    reporter,
    port: options.prompt,
    canReport: active,
    mfaEnrolled: () => (mfaState() === undefined ? undefined : mfaState() === 'enrolled'),
    clock,
    logger,
  });
  const timeoutWatch = new MfaTimeoutWatch({
    directory,
    prompter,
    enabled: () => active() && mfaState() !== 'not-enrolled',
    clock,
    thresholdMs: options.timeoutWarningMs,
  });
  return { client, api, mfa, prompter, sessions, directory, reporter, power, timeoutWatch };
}
