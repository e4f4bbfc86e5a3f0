/** The wire contract shared by the agent and the renderer (pure TypeScript, no Node imports). */
export * from './auth.js';
export * from './data-plane.js';
export * from './enrollment.js';
export * from './envelopes.js';
export * from './explain-failure.js';
export * from './mfa.js';
export * from './paths.js';
export * from './posture-reasons.js';
export * from './posture-responses.js';
export * from './refusal-reference.js';
export * from './service-access.js';
export * from './services.js';
export * from './prompts.js';
