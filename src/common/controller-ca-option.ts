/**
 * `--controller-ca FILE`: the PEM CA bundle to trust for the controller's certificate, one name on the router,
 * the agent and the admin CLI. Each still accepts its old spelling (`--ca` on the agent and admin CLI) as an
 * alias; both given with different files is refused rather than one silently winning.
 */
export function controllerCaFile(
  values: { 'controller-ca'?: string; ca?: string },
  refuse: (message: string) => Error,
): string | undefined {
  const named = values['controller-ca'];
  const alias = values.ca;
  if (named !== undefined && alias !== undefined && named !== alias)
    throw refuse(`--controller-ca and its alias --ca name different files ('${named}', '${alias}')`);
  return named ?? alias;
}

/**
 * `--controller-fingerprint FP`: the SHA-256 fingerprint a controller with a self-signed certificate prints at
 * its start, trusted instead of any CA; the same option on the router, the agent and the admin CLI. Colons
 * and case as printed or not.
 */
export function controllerFingerprint(
  value: string | undefined,
  refuse: (message: string) => Error,
): string | undefined {
  if (value === undefined) return undefined;
  const hex = value.replace(/:/g, '').toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hex))
    throw refuse(`--controller-fingerprint must be a SHA-256 fingerprint (64 hex digits), got '${value}'`);
  return hex;
}
